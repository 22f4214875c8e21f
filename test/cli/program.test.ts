import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMAND_GROUPS, commandNamed, createProgram } from '../../cli/program.js';

describe('the brain command', () => {
  it('knows, for every group, exactly the commands its module registers, in help order', async () => {
    const all = await createProgram();
    const registered: string[] = [];
    for (const group of COMMAND_GROUPS) {
      const alone = new Command('brain');
      for (const register of await group.load()) register(alone, () => ({}));
      expect(alone.commands.map((c) => c.name())).toEqual(group.commands);
      registered.push(...group.commands);
    }
    expect(all.commands.map((c) => c.name())).toEqual(registered);
  });

  it('registers only the named command’s group, and every group for help or an unknown name', async () => {
    const poll = await createProgram(['--db', 'send', 'poll', '--agent', 'nova']);
    expect(poll.commands.map((c) => c.name())).toEqual(['poll', 'inbox', 'read', 'ack']);
    const help = await createProgram(['--help']);
    expect(help.commands.length).toBe(COMMAND_GROUPS.flatMap((g) => g.commands).length);
    const unknown = await createProgram(['sned']);
    expect(unknown.commands.map((c) => c.name())).toContain('send');
  });

  it('finds the command after the global options and their values', () => {
    expect(commandNamed(['--agent', 'search', '--db', 'x.db', 'poll'])).toBe('poll');
    expect(commandNamed(['--json', 'search', 'fees'])).toBe('search');
    expect(commandNamed(['--version'])).toBeUndefined();
  });
});
