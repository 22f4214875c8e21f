import { closedPortUrl } from '../models/helpers.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../../cli-in-process.js';
import { CLI, runCli, tempDir } from '../../helpers.js';
import { startFakeAnthropic, type FakeAnthropic } from '../../fakes/anthropic.js';
import { startFakeOpenAI } from '../../fakes/openai.js';
import { configFileBody } from './helpers.js';

/**
 * The built `brain agent` as a real process, with the fake Anthropic server as its model. The
 * other agent's sends and the reads that check the thread run in this process (`cli`): they are
 * another process to the agent all the same, and a spawned CLI per probe cost the agent its CPU.
 */

const SECRET = 'sk-test-do-not-log-me';
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(file: Record<string, unknown> = {}) {
  const { dir, cleanup } = tempDir('brain-agent-cli-');
  cleanups.push(cleanup);
  const fake: FakeAnthropic = await startFakeAnthropic();
  cleanups.push(() => fake.close());
  const config = join(dir, 'assistant.json');
  writeFileSync(config, JSON.stringify(configFileBody(fake.baseUrl, dir, file)));
  const env = {
    BRAIN_DB: join(dir, 'brain.db'),
    BRAIN_ASSISTANT_CONFIG: config,
    XDG_CONFIG_HOME: join(dir, 'cfg'),
    ANTHROPIC_API_KEY: SECRET,
  };
  return {
    dir,
    fake,
    config,
    env,
    cli: (args: string[]) => runCliInProcess(args, env),
    spawnCli: (args: string[]) => runCli(args, env),
  };
}

/** Start `brain agent`; resolves once it has logged `ready`. */
async function startAgent(env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, [CLI, 'agent'], {
    env: { ...process.env, BRAIN_EMBEDDER: 'none', NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    return exited;
  });
  const ready = new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (/^brain: info ready /m.test(stderr)) resolve();
    });
    void exited.then(() => reject(new Error(`brain agent exited before ready:\n${stderr}`)));
  });
  await ready;
  return { child, exited, stderr: () => stderr };
}

async function waitFor<T>(probe: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('timed out');
    // Poll (another process does the work): let this process's servers answer meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('brain agent', { timeout: 120_000 }, () => {
  it("answers another agent's message in its thread, marks it read, and logs neither the key nor the bodies", async () => {
    const s = await setup();
    s.fake.script.push({ text: 'The build is green.' });
    const agent = await startAgent(s.env);
    const sent = await s.cli([
      'send',
      '--agent',
      'other',
      '--to',
      'assistant',
      '--body',
      'Is the build green?',
      '--json',
    ]);
    expect(sent.code).toBe(0);
    const { id, thread_id } = JSON.parse(sent.stdout) as { id: string; thread_id: string };

    const messages = await waitFor(async () => {
      const r = await s.cli(['thread', thread_id, '--json']);
      const thread = JSON.parse(r.stdout) as {
        messages: Array<{ from: string; to: string; body: string; reply_to: string | null }>;
      };
      return thread.messages.length >= 2 ? thread.messages : undefined;
    });
    expect(messages[1]).toMatchObject({
      from: 'assistant',
      to: 'other',
      body: 'The build is green.',
      reply_to: id,
    });
    // The model saw the other agent's words as untrusted data.
    expect(JSON.stringify(s.fake.requests[0]!.body.messages)).toContain('Is the build green?');
    const unread = await s.cli(['inbox', '--agent', 'assistant', '--peek', '--json']);
    expect(unread.stdout).not.toContain(id);
    // Stored once: the thread holds the question and the one reply, and search finds each once.
    expect(messages).toHaveLength(2);
    const found = await s.cli(['search', 'build green', '--types', 'message', '--json']);
    const hits = (JSON.parse(found.stdout) as { hits: Array<{ agent: string; thread_id: string }> })
      .hits;
    expect(hits.map((h) => [h.agent, h.thread_id]).sort()).toEqual([
      ['assistant', thread_id],
      ['other', thread_id],
    ]);

    // A follow-up in the same thread is answered there, with the first exchange as context.
    s.fake.script.push({ text: 'Still green.' });
    await s.cli([
      'send',
      '--agent',
      'other',
      '--to',
      'assistant',
      '--thread',
      thread_id,
      '--body',
      'And now?',
    ]);
    const after = await waitFor(async () => {
      const r = await s.cli(['thread', thread_id, '--json']);
      const thread = JSON.parse(r.stdout) as { messages: Array<{ from: string; body: string }> };
      return thread.messages.length >= 4 ? thread.messages : undefined;
    });
    expect(after.map((m) => m.body)).toEqual([
      'Is the build green?',
      'The build is green.',
      'And now?',
      'Still green.',
    ]);
    expect(JSON.stringify(s.fake.requests[1]!.body.messages)).toContain('The build is green.');

    agent.child.kill('SIGTERM');
    expect(await agent.exited).toBe(0);
    const log = agent.stderr();
    expect(log).toMatch(/inbox\.replied/);
    expect(log).not.toContain(SECRET);
    expect(log).not.toContain('Is the build green?');
    expect(log).not.toContain('The build is green.');
  });

  it('exits 0 within 10 s of SIGTERM, cancelling a turn the model never finishes', async () => {
    const s = await setup();
    s.fake.script.push({ error: 'stall' });
    const agent = await startAgent(s.env);
    await s.cli(['send', '--agent', 'other', '--to', 'assistant', '--body', 'take forever']);
    await waitFor(async () => (s.fake.requests.length > 0 ? true : undefined));
    const signalled = Date.now();
    agent.child.kill('SIGTERM');
    expect(await agent.exited).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(10_000);
    expect(agent.stderr()).toMatch(/info stopped/);
  });

  it('--check prints one line per item and exits 0 when all are ok', async () => {
    const s = await setup();
    // A real process: the wiring of --check (its exit status and stdout).
    const r = await s.spawnCli(['agent', '--check']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ok {3}config: /);
    expect(lines[1]).toMatch(/^ok {3}brain: /);
    expect(lines[2]).toMatch(
      /^ok {3}model models\.endpoints\.0 \(anthropic claude-fake\): answers/,
    );
    expect(lines.some((l) => /^ok {3}inbox: 0 unread/.test(l))).toBe(true);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
  });

  it('--check exits 1 and says which item failed when the model refuses the key', async () => {
    const s = await setup();
    s.fake.failure = { error: 'auth' };
    const r = await s.cli(['agent', '--check']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^FAIL model models\.endpoints\.0 /m);
    expect(r.stdout).toContain(`ANTHROPIC_API_KEY was refused by ${s.fake.baseUrl}`);
    expect(r.stdout).toMatch(/^ok {3}brain: /m);
  });

  it('--check says a missing ANTHROPIC_API_KEY made Ollama the default when Ollama does not answer', async () => {
    const s = await setup();
    const body = configFileBody(s.fake.baseUrl, s.dir, {}) as Record<string, unknown>;
    delete body.models;
    writeFileSync(s.config, JSON.stringify(body));
    const ollama = await closedPortUrl();
    const env: Record<string, string> = { ...s.env, OLLAMA_HOST: ollama };
    delete env.ANTHROPIC_API_KEY;
    const r = await runCliInProcess(['agent', '--check'], env);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      `no ANTHROPIC_API_KEY set, so the default is Ollama at ${ollama}, which did not answer`,
    );
  });

  it('--check asks an OpenAI-compatible endpoint for its models with the key its variable holds', async () => {
    const s = await setup();
    const openai = await startFakeOpenAI();
    cleanups.push(() => openai.close());
    openai.apiKey = 'sk-or-do-not-log';
    const body = configFileBody(s.fake.baseUrl, s.dir, {}) as Record<string, unknown>;
    body.models = {
      endpoints: [
        { provider: 'openai', model: 'gpt-fake', baseUrl: openai.baseUrl, apiKeyEnv: 'OR_KEY' },
        { provider: 'openai', model: 'gpt-absent', baseUrl: openai.baseUrl, apiKeyEnv: 'OR_KEY' },
      ],
    };
    writeFileSync(s.config, JSON.stringify(body));
    const r = await runCliInProcess(['agent', '--check'], { ...s.env, OR_KEY: 'sk-or-do-not-log' });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      `ok   model models.endpoints.0 (openai gpt-fake): answers at ${openai.baseUrl}`,
    );
    expect(r.stdout).toContain(
      `FAIL model models.endpoints.1 (openai gpt-absent): ${openai.baseUrl} answers but lists no model gpt-absent (it lists gpt-fake)`,
    );
    expect(r.stdout + r.stderr).not.toContain('sk-or-do-not-log');
    const unset = await runCliInProcess(['agent', '--check'], s.env);
    expect(unset.code).toBe(1);
    expect(unset.stdout).toMatch(/^FAIL .*models\.endpoints\.0\.apiKeyEnv: OR_KEY is not set/m);
  });

  it('--check exits 1 on a config that does not validate, naming the key path', async () => {
    const s = await setup({ lane: { maxConcurrent: 0 } });
    const r = await s.cli(['agent', '--check']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^FAIL config: .*lane\.maxConcurrent: /m);
  });

  it('refuses to start on a bad config: exit 2, the key path, no stack', async () => {
    const s = await setup({ owner: { telegram: 'me' } });
    const r = await s.cli(['agent']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^brain: INVALID_INPUT: .*owner\.telegram: /m);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
