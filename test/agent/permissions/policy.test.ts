import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  alwaysPatternOf,
  ruleMatches,
  configuredLevel,
  createPolicy,
  permissionsConfig,
  type JudgeCommand,
} from '../../../agent/permissions/policy.js';
import type { Tool } from '../../../agent/tools/types.js';
import { readApprovalRule, type ApprovalRule } from '../../../src/index.js';

const tool = (name: string, readOnly = false): Tool => ({
  name,
  description: name,
  schema: z.unknown(),
  readOnly,
  run: async () => ({ content: 'ran' }),
});

/** A stand-in judge: `ls …` and `git status` are safe, everything else asks. */
const judge: JudgeCommand = async (command) => {
  const argv = command.split(' ');
  const safe = argv[0] === 'ls' || command === 'git status';
  return {
    verdict: safe ? 'safe' : 'ask',
    reason: safe ? 'read-only' : 'not on the safe list',
    commands: [{ argv }],
    simple: true,
  };
};

const policy = (tools: Record<string, string> = {}, rules: ApprovalRule[] = []) =>
  createPolicy({
    config: permissionsConfig.parse({ tools }),
    judgeCommand: judge,
    rules: () => rules,
  });
const W = { workspace: process.cwd() };
const rule = (id: number, tool: string, pattern: string): ApprovalRule => ({
  id,
  tool,
  pattern,
  created_at: '2026-01-01T00:00:00.000Z',
  ...readApprovalRule(tool, pattern),
});

describe('the permission policy', () => {
  it('allows read-only tools, asks for write_file and unknown tools by default', async () => {
    const p = policy();
    expect((await p.decide(tool('read_file', true), { path: 'a' }, W)).decision).toBe('allow');
    expect((await p.decide(tool('write_file'), { path: 'a', content: '' }, W)).decision).toBe(
      'ask',
    );
    expect((await p.decide(tool('mcp__github__create_issue'), {}, W)).decision).toBe('ask');
    expect((await p.decide(tool('save_memory'), { content: 'x' }, W)).decision).toBe('allow');
    expect((await policy({ save_memory: 'ask' }).decide(tool('save_memory'), {}, W)).decision).toBe(
      'ask',
    );
  });

  it('allows run_command when the judge calls the command safe and asks otherwise', async () => {
    const p = policy();
    expect((await p.decide(tool('run_command'), { command: 'ls -la' }, W)).decision).toBe('allow');
    const rm = await p.decide(tool('run_command'), { command: 'rm -rf build' }, W);
    expect(rm).toMatchObject({
      decision: 'ask',
      summary: 'run_command command: rm -rf build',
      alwaysPattern: 'exactly rm -f -r build',
    });
  });

  it('prefers an exact name to any pattern, and a longer pattern to a shorter one', () => {
    const tools = {
      '*': 'deny',
      'mcp__*': 'ask',
      'mcp__github__*': 'allow',
      mcp__github__delete: 'deny',
    } as const;
    expect(configuredLevel(tools, 'mcp__github__delete')?.level).toBe('deny');
    expect(configuredLevel(tools, 'mcp__github__list')?.level).toBe('allow');
    expect(configuredLevel(tools, 'mcp__slack__post')?.level).toBe('ask');
    expect(configuredLevel(tools, 'read_file')?.level).toBe('deny');
    expect(configuredLevel({ 'mcp__git.hub*': 'deny' }, 'mcp__gitXhub')).toBeUndefined();
  });

  it('lets a configured level replace the default, so a safe command can still be asked or denied', async () => {
    expect(
      (await policy({ read_file: 'deny' }).decide(tool('read_file', true), {}, W)).decision,
    ).toBe('deny');
    expect(
      (await policy({ run_command: 'ask' }).decide(tool('run_command'), { command: 'ls' }, W))
        .decision,
    ).toBe('ask');
    expect((await policy({ write_file: 'allow' }).decide(tool('write_file'), {}, W)).decision).toBe(
      'allow',
    );
  });

  it('allows an ask that a stored always-rule covers, but never over a configured deny', async () => {
    const rules = [
      rule(1, 'run_command', 'exactly git log --stat'),
      rule(2, 'write_file', 'path notes/todo.md'),
    ];
    const p = policy({}, rules);
    expect(await p.decide(tool('run_command'), { command: 'git log --stat' }, W)).toMatchObject({
      decision: 'allow',
      by: 'always',
    });
    expect((await p.decide(tool('run_command'), { command: 'git push' }, W)).decision).toBe('ask');
    const write = (path: string) => p.decide(tool('write_file'), { path, content: '' }, W);
    expect((await write('notes/todo.md')).decision).toBe('allow');
    expect((await write('./notes/../notes/todo.md')).decision).toBe('allow');
    expect((await write('SOUL.md')).decision).toBe('ask');
    const denied = policy({ write_file: 'deny', 'run_*': 'deny' }, rules);
    expect((await denied.decide(tool('write_file'), { path: 'notes/todo.md' }, W)).decision).toBe(
      'deny',
    );
    expect(
      (await denied.decide(tool('run_command'), { command: 'git log --stat' }, W)).decision,
    ).toBe('deny');
  });

  it('no longer lets a rule in the old wide form allow anything', async () => {
    const rules = [
      rule(1, 'run_command', 'git push *'),
      rule(2, 'write_file', 'write_file'),
      rule(3, 'send_message', 'send_message'),
    ];
    expect(rules.map((r) => r.active)).toEqual([false, false, false]);
    const p = policy({}, rules);
    expect((await p.decide(tool('run_command'), { command: 'git push' }, W)).decision).toBe('ask');
    expect((await p.decide(tool('write_file'), { path: 'a', content: '' }, W)).decision).toBe(
      'ask',
    );
    expect((await p.decide(tool('send_message'), { to: 'nova', body: 'hi' }, W)).decision).toBe(
      'ask',
    );
  });

  it('offers no always-pattern for a shell, an interpreter, a wrapper or a path', () => {
    for (const argv of [
      ['sh', '-c', 'id'],
      ['python3', '-c', '1'],
      ['python3.12', '-c', '1'],
      ['node', '-e', '1'],
      ['env', 'rm'],
      ['xargs', 'rm'],
      ['~/bin/tool'],
      ['./x'],
    ]) {
      expect(alwaysPatternOf(argv), argv.join(' ')).toBeUndefined();
    }
    expect(alwaysPatternOf(['git', 'log', '--oneline'])).toBe('exactly git log --oneline');
    expect(alwaysPatternOf(['git', 'push', 'origin', 'main'])).toBe('exactly git push origin main');
    expect(alwaysPatternOf(['grep', '-n', 'a b', "it's"])).toBe(`exactly grep -n 'a b' 'it'\\''s'`);
    expect(alwaysPatternOf(['ls'], 'sub dir')).toBe(`in 'sub dir' exactly ls`);
  });

  it('keeps every word of an always-rule, so it covers the same command and nothing else', () => {
    const push = alwaysPatternOf(['git', 'push', 'origin', 'main'])!;
    expect(ruleMatches(push, ['git', 'push', 'origin', 'main'])).toBe(true);
    expect(ruleMatches(push, ['git', 'push', 'origin', 'dev'])).toBe(false);
    expect(ruleMatches(push, ['git', 'push', 'origin', 'main'], 'other')).toBe(false);
    const rm = alwaysPatternOf(['rm', '-rf', 'build'])!;
    expect(ruleMatches(rm, ['rm', '-fr', 'build'])).toBe(true);
    expect(ruleMatches(rm, ['rm', '-r', '-f', 'build'])).toBe(true);
    expect(ruleMatches(rm, ['rm', '-rf', 'dist'])).toBe(false);
    expect(ruleMatches(rm, ['rm', '-rfv', 'build'])).toBe(false);
    expect(ruleMatches(rm, ['rm', '-rf', '--', 'build'])).toBe(false);
  });

  it('names the key path of a bad permissions config', () => {
    const bad = permissionsConfig.safeParse({
      tools: { write_file: 'sometimes' },
      approvalTimeoutSeconds: 0,
    });
    expect(bad.success).toBe(false);
    const paths = bad.error!.issues.map((i) => i.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['tools.write_file', 'approvalTimeoutSeconds']));
    expect(permissionsConfig.parse(undefined).approvalTimeoutSeconds).toBe(120);
  });
});
