import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, runCli, tempDir } from '../helpers.js';
import { startFakeAnthropic } from '../fakes/anthropic.js';

/** The built `brain chat`: slash commands and the owner's tools, against the fake Anthropic. */

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup() {
  const { dir, cleanup } = tempDir('brain-chat-commands-');
  cleanups.push(cleanup);
  const fake = await startFakeAnthropic();
  cleanups.push(() => fake.close());
  const config = join(dir, 'assistant.json');
  writeFileSync(
    config,
    JSON.stringify({
      agent: 'assistant',
      owner: 'ann',
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
  return { fake, env };
}

/** Run `brain chat` with these lines on stdin; resolves with its exit code and stdout. */
function chat(env: Record<string, string>, lines: string[]) {
  const child = spawn(process.execPath, [CLI, 'chat'], {
    env: { ...process.env, BRAIN_EMBEDDER: 'none', NO_COLOR: '1', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stdin.end(lines.map((l) => `${l}\n`).join(''));
  return new Promise<{ code: number; stdout: string }>((resolve) =>
    child.on('close', (code) => resolve({ code: code ?? -1, stdout })),
  );
}

describe('brain chat, built', { timeout: 90_000 }, () => {
  it('answers slash commands itself: the model server records no call', async () => {
    const s = await setup();
    const r = await chat(s.env, ['/help', '/status', '/usage', '/model', '/stop', '/exit']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('/usage shows');
    expect(r.stdout).toContain('Model: claude-fake (anthropic).');
    expect(r.stdout).toContain('No model calls in chat/default yet.');
    expect(r.stdout).toContain('1. claude-fake (anthropic) (in use)');
    expect(r.stdout).toContain('Nothing is running.');
    expect(s.fake.requests).toHaveLength(0);
    const one = await runCli(['chat', '-m', '/usage'], s.env);
    expect(one.stdout).toBe('No model calls in chat/default yet.\n');
    expect(s.fake.requests).toHaveLength(0);
  });

  it('sets a reminder with set_reminder, stored in the brain for brain agent to deliver', async () => {
    const s = await setup();
    s.fake.script.push(
      { toolUses: [{ name: 'set_reminder', input: { when: 'in 2 minutes', text: 'tea' } }] },
      { text: 'Reminder set.' },
    );
    const r = await runCli(['chat', '-m', 'remind me in 2 minutes: tea'], s.env);
    expect(r.stdout).toBe('Reminder set.\n');
    const result = JSON.stringify(s.fake.requests[1]!.body.messages);
    expect(result).not.toContain('unknown tool');
    const listed = JSON.parse((await runCli(['reminders', '--json'], s.env)).stdout);
    expect(listed.reminders.map((x: { text: string }) => x.text)).toEqual(['tea']);
  });
});
