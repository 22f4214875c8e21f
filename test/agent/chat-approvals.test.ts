import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../agent/models/types.js';
import { runCliInProcess } from '../cli-in-process.js';
import { runCli, tempDir } from '../helpers.js';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic.js';

/**
 * `brain chat -m` (unattended) and `brain approvals` on a temp brain: the first case through the
 * built CLI (both commands' wiring), the rest in this process.
 */

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup() {
  const { dir, cleanup } = tempDir('brain-approvals-');
  cleanups.push(cleanup);
  const fake: FakeAnthropic = await startFakeAnthropic();
  cleanups.push(() => fake.close());
  const workspace = join(dir, 'ws');
  mkdirSync(join(workspace, 'build'), { recursive: true });
  writeFileSync(join(workspace, 'build', 'out.js'), 'built');
  writeFileSync(join(workspace, 'README.md'), 'hello');
  const config = join(dir, 'assistant.json');
  writeFileSync(
    config,
    JSON.stringify({
      agent: 'assistant',
      owner: 'ann',
      workspace,
      models: {
        endpoints: [{ provider: 'anthropic', model: 'claude-fake', baseUrl: fake.baseUrl }],
      },
    }),
  );
  const env = {
    BRAIN_DB: join(dir, 'brain.db'),
    BRAIN_ASSISTANT_CONFIG: config,
    XDG_CONFIG_HOME: join(dir, 'cfg'),
    ANTHROPIC_API_KEY: 'sk-test',
  };
  return {
    workspace,
    fake,
    cli: (args: string[]) => runCliInProcess(args, env),
    spawnCli: (args: string[]) => runCli(args, env),
  };
}

const lastToolResult = (fake: FakeAnthropic, i: number) =>
  (fake.requests[i]!.body.messages as ChatMessage[]).at(-1)!.content[0] as {
    content: string;
    is_error?: boolean;
  };

describe('approvals through the CLI', { timeout: 90_000 }, () => {
  it('brain chat -m "delete build/" deletes nothing and records the denial', async () => {
    const s = await setup();
    s.fake.script.push(
      { toolUses: [{ name: 'run_command', input: { command: 'rm -rf build' } }] },
      { text: 'I was not allowed to delete it.' },
    );
    const r = await s.spawnCli(['chat', '-m', 'delete build/', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).reply).toBe('I was not allowed to delete it.');
    expect(existsSync(join(s.workspace, 'build', 'out.js'))).toBe(true);
    expect(lastToolResult(s.fake, 1)).toMatchObject({ is_error: true });
    expect(lastToolResult(s.fake, 1).content).toMatch(/unattended/);

    const listed = JSON.parse((await s.spawnCli(['approvals', '--json'])).stdout);
    expect(listed.decisions[0]).toMatchObject({
      tool: 'run_command',
      summary: 'run_command command: rm -rf build',
      decision: 'denied',
      decided_by: 'unattended',
    });
    expect(JSON.parse((await s.cli(['approvals', '--pending', '--json'])).stdout)).toEqual({
      pending: [],
    });
  });

  it('brain chat -m "what files are in my workspace?" runs list_files and ls without asking', async () => {
    const s = await setup();
    s.fake.script.push(
      { toolUses: [{ name: 'list_files', input: { path: '.' } }] },
      { toolUses: [{ name: 'run_command', input: { command: 'ls' } }] },
      { text: 'README.md and build/.' },
    );
    const r = await s.cli(['chat', '-m', 'what files are in my workspace?', '--json']);
    expect(r.code).toBe(0);
    expect(lastToolResult(s.fake, 1).is_error).toBeUndefined();
    expect(lastToolResult(s.fake, 1).content).toContain('README.md');
    expect(lastToolResult(s.fake, 2).is_error).toBeUndefined();
    expect(lastToolResult(s.fake, 2).content).toContain('README.md');
    const listed = JSON.parse((await s.cli(['approvals', '--json'])).stdout);
    expect(listed.decisions.map((d: any) => [d.tool, d.decision, d.decided_by])).toEqual([
      ['run_command', 'allow', 'policy'],
      ['list_files', 'allow', 'policy'],
    ]);
  });

  it('brain approvals --revoke refuses a bad id with exit 2 and an unknown one with exit 1', async () => {
    const s = await setup();
    const bad = await s.cli(['approvals', '--revoke', 'x1']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^brain: INVALID_INPUT: --revoke: /m);
    await s.cli(['whoami', '--agent', 'ann']); // a brain to look in: reads never make one
    const missing = await s.cli(['approvals', '--revoke', '7']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^brain: NOT_FOUND: .*rule 7/m);
    expect(missing.stderr).not.toMatch(/\n\s+at /);
  });
});
