import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { unpairedToolUses } from '../../agent/history.js';
import type { ChatMessage } from '../../agent/models/types.js';
import { runCliInProcess } from '../cli-in-process.js';
import { CLI, runCli, tempDir, type CliResult } from '../helpers.js';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic.js';

/**
 * `brain chat` against loopback fake Anthropic servers and a temp brain. What crosses processes
 * (a second process's turn, the lease, failover back, stdin and signals) runs the built CLI;
 * what one turn stores and how a turn fails run in this process (`inProcess`), as do the reads
 * that check the brain afterwards.
 */

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(endpoints = 1) {
  const { dir, cleanup } = tempDir('brain-chat-');
  cleanups.push(cleanup);
  const fakes: FakeAnthropic[] = [];
  for (let i = 0; i < endpoints; i++) {
    const fake = await startFakeAnthropic();
    cleanups.push(() => fake.close());
    fakes.push(fake);
  }
  const config = join(dir, 'assistant.json');
  writeFileSync(
    config,
    JSON.stringify({
      agent: 'assistant',
      owner: 'ann',
      models: {
        endpoints: fakes.map((f, i) => ({
          provider: 'anthropic',
          model: `claude-fake-${i}`,
          baseUrl: f.baseUrl,
          priority: i,
        })),
      },
    }),
  );
  const env = {
    BRAIN_DB: join(dir, 'brain.db'),
    BRAIN_ASSISTANT_CONFIG: config,
    XDG_CONFIG_HOME: join(dir, 'cfg'),
    ANTHROPIC_API_KEY: 'sk-test',
  };
  const cli = (args: string[]) => runCliInProcess(args, env);
  const spawnCli = (args: string[]) => runCli(args, env);
  const chat = async (text: string, options: { quiet?: boolean; inProcess?: boolean } = {}) => {
    const args = ['chat', '-m', text, '--json'];
    const r = await (options.inProcess ? cli(args) : spawnCli(args));
    // The first command of a test makes the brain and says so once; nothing else is said.
    const said = r.stderr.replace(`brain: created a new brain at ${env.BRAIN_DB}\n`, '');
    if (options.quiet !== false) expect(said).toBe('');
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout);
  };
  return { dir, env, fakes, fake: fakes[0]!, cli, spawnCli, chat, config };
}

function start(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, BRAIN_EMBEDDER: 'none', NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<CliResult>((resolve) =>
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr })),
  );
  return { child, done, stderr: () => stderr };
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1200 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

describe('brain chat -m', { timeout: 90_000 }, () => {
  it('persists a turn with two tool calls, found afterwards by brain search', async () => {
    const s = await setup();
    s.fake.script.push(
      {
        toolUses: [{ name: 'save_memory', input: { content: 'Ann parks in bay 42 at Zurich HB' } }],
      },
      { toolUses: [{ name: 'search_memory', input: { query: 'parking bay' } }] },
      { text: 'Noted: bay 42.', usage: { input_tokens: 120, output_tokens: 7 } },
    );
    const out = await s.chat('I parked in bay 42 at Zurich HB', { inProcess: true });
    expect(out).toMatchObject({ reply: 'Noted: bay 42.', session: 'chat/default' });
    expect(out.message_ids).toHaveLength(2);
    expect(out.usage).toEqual({
      input_tokens: expect.any(Number),
      output_tokens: 17,
      cache_read_tokens: expect.any(Number),
      cache_write_tokens: expect.any(Number),
    });

    const found = JSON.parse((await s.cli(['search', 'bay 42', '--json'])).stdout);
    const ids = found.hits.map((h: any) => h.id);
    expect(ids).toEqual(expect.arrayContaining(out.message_ids));
    expect(found.hits.some((h: any) => h.type === 'stm' && h.agent === 'assistant')).toBe(true);
    // The second call saw the first one's result.
    expect(JSON.stringify(s.fake.requests[2]!.body.messages)).toContain('Ann parks in bay 42');
  });

  it('saves a memory whose provenance reaches the user’s message and its thread', async () => {
    const s = await setup();
    s.fake.script.push(
      { toolUses: [{ name: 'save_memory', input: { content: 'Ann’s dentist is Dr Vogel' } }] },
      { text: 'Saved.' },
    );
    const out = await s.chat('my dentist is Dr Vogel', { inProcess: true });
    const stm = JSON.parse(
      (await s.cli(['search', 'dentist Vogel', '--types', 'stm', '--json'])).stdout,
    ).hits[0];
    const prov = await s.cli(['provenance', stm.id, '--json']);
    expect(prov.code).toBe(0);
    const doc = JSON.parse(prov.stdout);
    expect(doc.message.id).toBe(out.message_ids[0]);
    expect(doc.message.body).toBe('my dentist is Dr Vogel');
    expect(doc.thread.id).toBe(out.thread_id);
    expect(doc.thread.subject).toBe('chat/default');
    expect(doc.context.map((m: any) => m.id)).toEqual(out.message_ids);
  });

  it('continues the conversation in a second process: the model sees the earlier turn', async () => {
    const s = await setup();
    s.fake.script.push({ text: 'Hello Ann.' }, { text: 'You said hello.' });
    await s.chat('hello, I am Ann');
    const second = await s.chat('what did I say?');
    expect(second.reply).toBe('You said hello.');
    const messages = s.fake.requests[1]!.body.messages as ChatMessage[];
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(messages)).toContain('hello, I am Ann');
    expect(JSON.stringify(messages)).toContain('Hello Ann.');
  });

  it('serialises two processes’ turns in one session: the second waits for the lease', async () => {
    const s = await setup();
    s.fake.script.push(
      { toolUses: [{ id: 'toolu_x', name: 'search_memory', input: { query: 'x' } }] },
      { error: 'stall' },
    );
    const first = start(['chat', '-m', 'first'], s.env);
    await until(() => s.fake.requests.length === 2, 'the first turn’s second call');
    const second = start(['chat', '-m', 'second', '--json'], s.env);
    await until(() => second.stderr().includes('turn.wait_lease'), 'the second to wait');
    expect(s.fake.requests).toHaveLength(2);
    // A third, stopped while it waits, leaves nothing behind.
    const third = start(['chat', '-m', 'third'], s.env);
    await until(() => third.stderr().includes('turn.wait_lease'), 'the third to wait');
    third.child.kill('SIGTERM');
    const thirdDone = await third.done;
    expect(thirdDone.code).toBe(130);
    expect(thirdDone.stderr).toContain('cancelled before the turn began');
    first.child.kill('SIGTERM');
    const firstDone = await first.done;
    expect(firstDone.code).toBe(130);
    const secondDone = await second.done;
    expect(secondDone.code).toBe(0);
    // The second turn's request: the first turn, cancelled but with its tool_use paired, then "second".
    const messages = s.fake.requests[2]!.body.messages as ChatMessage[];
    expect(unpairedToolUses(messages)).toEqual([]);
    expect(JSON.stringify(messages)).toContain('toolu_x');
    expect(messages[0]!.content[0]).toEqual({ type: 'text', text: 'first' });
    expect(messages.at(-1)!.content.at(-1)).toEqual({ type: 'text', text: 'second' });
    expect(JSON.stringify(messages)).not.toContain('third');
  });

  it('fails over to the second endpoint, and the next process goes back to the first', async () => {
    const s = await setup(2);
    s.fakes[0]!.failure = { error: 'overloaded' };
    s.fakes[1]!.script.push({ text: 'from the second' });
    const out = await s.chat('hi', { quiet: false });
    expect(out.reply).toBe('from the second');
    expect(out.model).toBe('claude-fake-1');
    s.fakes[0]!.failure = undefined;
    s.fakes[0]!.script.push({ text: 'from the first' });
    const back = await s.chat('again');
    expect(back.reply).toBe('from the first');
    expect(back.model).toBe('claude-fake-0');
    expect(s.fakes[0]!.requests).toHaveLength(2);
    expect(s.fakes[1]!.requests).toHaveLength(1);
  });

  it('exits 1 with a code and no stack trace when no model answers', async () => {
    const s = await setup();
    s.fake.failure = { error: 'auth' };
    const r = await s.cli(['chat', '-m', 'hi']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^brain: UPSTREAM_FAILED: .*/m);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stdout).toBe('');
  });

  it('rejects a bad config with exit 2, naming the key path', async () => {
    const s = await setup();
    writeFileSync(
      s.config,
      '{ // comment\n "models": { "endpoints": [ { "provider": "gemini", "model": "x" } ] } }',
    );
    const r = await s.cli(['chat', '-m', 'hi']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('models.endpoints.0.provider');
    expect(s.fake.requests).toHaveLength(0);
  });
});

describe('brain chat (a conversation)', { timeout: 90_000 }, () => {
  it('streams replies, cancels a turn on SIGINT, starts afresh on /new and quits on /exit', async () => {
    const s = await setup();
    s.fake.script.push(
      { text: ['Hel', 'lo.'] },
      { error: 'stall' },
      { text: 'After.' },
      { text: 'Fresh.' },
    );
    const child = spawn(process.execPath, [CLI, 'chat'], {
      env: { ...process.env, BRAIN_EMBEDDER: 'none', NO_COLOR: '1', ...s.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const closed = new Promise<number>((r) => child.on('close', (code) => r(code ?? -1)));

    child.stdin.write('hi\n');
    await until(() => stdout.includes('Hello.'), 'the first reply');
    child.stdin.write('think hard\n');
    await until(
      () => s.fake.requests.length === 2 && stdout.includes('Let me think'),
      'the stalled turn',
    );
    child.kill('SIGINT');
    await until(() => stderr.includes('(cancelled)'), 'the cancel');
    child.stdin.write('still there?\n/new\nnew topic\n/exit\n');
    expect(await closed).toBe(0);
    expect(stdout).toContain('After.');
    expect(stdout).toContain('Fresh.');

    // The cancelled turn is stored consistently; /new left the old thread and began another.
    expect(unpairedToolUses(s.fake.requests[2]!.body.messages as ChatMessage[])).toEqual([]);
    const fresh = s.fake.requests[3]!.body.messages as ChatMessage[];
    expect(fresh).toEqual([{ role: 'user', content: [{ type: 'text', text: 'new topic' }] }]);
    const threads = JSON.parse((await s.cli(['threads', '--json'])).stdout);
    expect(JSON.stringify(threads).match(/chat\/default/g)!.length).toBeGreaterThanOrEqual(2);
  });
});
