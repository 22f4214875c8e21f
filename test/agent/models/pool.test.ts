import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAnthropicClient } from '../../../agent/models/anthropic.js';
import { createOllamaClient } from '../../../agent/models/ollama.js';
import { createModelPool, type PoolEndpoint } from '../../../agent/models/pool.js';
import {
  ModelError,
  type ModelClient,
  type ModelPool,
  type ModelRequest,
} from '../../../agent/models/types.js';
import { startFakeAnthropic, type FakeAnthropic } from '../../fakes/anthropic.js';
import { startFakeOllamaChat, type FakeOllamaChat } from '../../fakes/ollama.js';
import { captureLog, closedPortUrl, manualTime } from './helpers.js';

const KEY = 'sk-ant-pool-secret-5678';
let first: FakeAnthropic;
let second: FakeAnthropic;
let local: FakeOllamaChat;

beforeEach(async () => {
  [first, second, local] = await Promise.all([
    startFakeAnthropic(),
    startFakeAnthropic(),
    startFakeOllamaChat(),
  ]);
  first.fallback = () => ({ text: 'from first' });
  second.fallback = () => ({ text: 'from second' });
  local.fallback = () => ({ text: 'from local' });
});
afterEach(async () => {
  await Promise.all([first.close(), second.close(), local.close()]);
});

const anthropic = (
  id: string,
  baseUrl: string,
  priority = 0,
  tags: string[] = [],
): PoolEndpoint => ({
  client: createAnthropicClient({ id, model: 'claude-test', apiKey: KEY, baseUrl, maxTokens: 100 }),
  priority,
  tags,
});

const ask: ModelRequest = {
  system: 'sys',
  messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
  tools: [],
};

const textOf = async (pool: ModelPool, options?: { tags?: string[] }) => {
  const response = await pool.complete(ask, options);
  return `${response.endpoint}: ${response.content.map((b) => (b.type === 'text' ? b.text : '')).join('')}`;
};

function setup(endpoints: PoolEndpoint[], options: { cooldown?: { maxWaitMs?: number } } = {}) {
  const time = manualTime();
  const logs = captureLog();
  const pool = createModelPool(endpoints, {
    clock: time.clock,
    log: logs.log,
    sleep: time.sleep,
    ...options,
  });
  return { pool, time, logs };
}

describe('the model pool', () => {
  it('fails over on 429, keeps off the first endpoint for its retry-after, then goes back to it', async () => {
    const { pool, time, logs } = setup([
      anthropic('a', first.baseUrl),
      anthropic('b', second.baseUrl, 1),
    ]);
    first.script.push({ error: 'rate_limited', retryAfter: '20' });
    expect(await textOf(pool)).toBe('b: from second');
    expect(pool.status()[0]).toMatchObject({
      id: 'a',
      state: 'cooling',
      until: '2026-11-25T12:00:20.000Z',
    });
    expect(pool.status()[0]!.lastError).toContain('429');
    time.advance(19_999);
    expect(await textOf(pool)).toBe('b: from second');
    expect(first.requests).toHaveLength(1);
    time.advance(1);
    expect(await textOf(pool)).toBe('a: from first');
    expect(pool.status().map((s) => s.state)).toEqual(['ready', 'ready']);
    expect(logs.lines.find((l) => l.event === 'model.cooldown')?.fields).toEqual({
      endpoint: 'a',
      kind: 'rate_limited',
      ms: 20_000,
    });
  });

  it('cools an overloaded endpoint for 30 s, longer when it is overloaded again', async () => {
    const { pool, time } = setup([
      anthropic('a', first.baseUrl),
      anthropic('b', second.baseUrl, 1),
    ]);
    first.script.push({ error: 'overloaded' }, { error: 'overloaded' });
    expect(await textOf(pool)).toBe('b: from second');
    expect(pool.status()[0]!.until).toBe('2026-11-25T12:00:30.000Z');
    time.advance(30_000);
    expect(await textOf(pool)).toBe('b: from second'); // overloaded again: 60 s now
    expect(pool.status()[0]!.until).toBe('2026-11-25T12:01:30.000Z');
    time.advance(60_000);
    expect(await textOf(pool)).toBe('a: from first');
    // A success resets the growth: the next overload cools for 30 s again.
    first.script.push({ error: 'overloaded_mid_stream' });
    expect(await textOf(pool)).toBe('b: from second');
    expect(pool.status()[0]!.until).toBe('2026-11-25T12:02:00.000Z');
  });

  it('tells the caller once to start over when an endpoint fails after streaming some text', async () => {
    const { pool } = setup([
      anthropic('a', first.baseUrl),
      anthropic('b', second.baseUrl, 1),
      {
        client: createOllamaClient({
          id: 'c',
          model: 'llama3.1',
          host: local.host,
          maxTokens: 100,
        }),
        priority: 2,
      },
    ]);
    first.script.push({ error: 'overloaded_mid_stream' });
    second.script.push({ error: 'rate_limited' }); // fails before any text: nothing more to void
    const shown: string[] = [];
    const streamed = {
      ...ask,
      onText: (d: string) => shown.push(d),
      onRestart: () => shown.push('<restart>'),
    };
    await pool.complete(streamed);
    expect(shown).toEqual(['Let me think', '<restart>', 'from local']);
  });

  it('disables an endpoint that refuses its key, with one log line and no key in it', async () => {
    const { pool, logs } = setup([
      anthropic('a', first.baseUrl),
      anthropic('b', second.baseUrl, 1),
    ]);
    first.failure = { error: 'auth' };
    expect(await textOf(pool)).toBe('b: from second');
    expect(await textOf(pool)).toBe('b: from second');
    expect(first.requests).toHaveLength(1);
    const disabled = logs.lines.filter((l) => l.event === 'model.disabled');
    expect(disabled).toEqual([
      {
        level: 'error',
        event: 'model.disabled',
        fields: { endpoint: 'a', reason: 'authentication failed (401)' },
      },
    ]);
    expect(JSON.stringify(logs.lines)).not.toContain(KEY);
    expect(pool.status()[0]).toMatchObject({ state: 'disabled' });
    expect(JSON.stringify(pool.status())).not.toContain(KEY);
  });

  it('retries a refused connection with backoff, then uses the next endpoint', async () => {
    const { pool, time } = setup([
      anthropic('a', await closedPortUrl()),
      anthropic('b', second.baseUrl, 1),
    ]);
    expect(await textOf(pool)).toBe('b: from second');
    expect(time.waits).toEqual([250, 500]);
    // Cooled for 5 s from the last try, 750 ms in.
    expect(pool.status()[0]).toMatchObject({ state: 'cooling', until: '2026-11-25T12:00:05.750Z' });
    expect(pool.status()[0]!.lastError).toContain('connection');
  });

  it('fails fast when its only endpoint is down, without waiting out the cool-down', async () => {
    const { pool, time } = setup([anthropic('a', await closedPortUrl())]);
    const err = (await pool.complete(ask).catch((e: unknown) => e)) as ModelError;
    expect(err).toMatchObject({ kind: 'connection' });
    expect(err.message).toMatch(
      /^no model endpoint answered: a cooling until .* \(a \(anthropic .* at http:\/\/127\.0\.0\.1:\d+\): connection failed/,
    );
    expect(time.waits).toEqual([250, 500]);
  });

  it('cools an endpoint that failed with a server error for 5 s and uses the next', async () => {
    const { pool, time } = setup([
      anthropic('a', first.baseUrl),
      anthropic('b', second.baseUrl, 1),
    ]);
    first.script.push({ error: 'server' });
    expect(await textOf(pool)).toBe('b: from second');
    time.advance(4_999);
    expect(await textOf(pool)).toBe('b: from second');
    time.advance(1);
    expect(await textOf(pool)).toBe('a: from first');
  });

  it('throws a prompt that is too long straight back without asking another endpoint', async () => {
    const { pool } = setup([anthropic('a', first.baseUrl), anthropic('b', second.baseUrl, 1)]);
    first.script.push({ error: 'prompt_too_long' });
    const err = await pool.complete(ask).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelError);
    expect(err).toMatchObject({ kind: 'context_too_long' });
    expect(second.requests).toHaveLength(0);
    expect(pool.status()[0]!.state).toBe('ready');
  });

  it('throws an abort straight back', async () => {
    const { pool } = setup([anthropic('a', first.baseUrl), anthropic('b', second.baseUrl, 1)]);
    const err = await pool
      .complete({ ...ask, signal: AbortSignal.abort() })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'aborted' });
    expect(first.requests.length + second.requests.length).toBe(0);
  });

  it('takes turns among the endpoints of the best priority and leaves the others alone', async () => {
    const { pool } = setup([
      anthropic('a', first.baseUrl),
      anthropic('b', second.baseUrl),
      {
        client: createOllamaClient({
          id: 'c',
          model: 'llama3.1',
          host: local.host,
          maxTokens: 100,
        }),
        priority: 5,
      },
    ]);
    const served = [];
    for (let i = 0; i < 4; i++) served.push((await pool.complete(ask)).endpoint);
    expect(served).toEqual(['a', 'b', 'a', 'b']);
    expect(local.requests).toHaveLength(0);
  });

  it('falls to a lower priority (another provider) when the whole best group is out', async () => {
    const { pool } = setup([
      anthropic('a', first.baseUrl),
      anthropic('b', second.baseUrl),
      {
        client: createOllamaClient({
          id: 'c',
          model: 'llama3.1',
          host: local.host,
          maxTokens: 100,
        }),
        priority: 5,
      },
    ]);
    first.failure = { error: 'rate_limited', retryAfter: '60' };
    second.failure = { error: 'overloaded' };
    expect(await textOf(pool)).toBe('c: from local');
  });

  it('picks only endpoints that carry every requested tag', async () => {
    const { pool } = setup([
      anthropic('a', first.baseUrl),
      anthropic('b', second.baseUrl, 1, ['cheap']),
    ]);
    expect(await textOf(pool, { tags: ['cheap'] })).toBe('b: from second');
    const err = await pool.complete(ask, { tags: ['vision'] }).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'bad_request' });
    expect((err as Error).message).toContain('vision');
  });

  it('waits for the first endpoint back when all are cooling for a short while', async () => {
    const { pool, time } = setup([
      anthropic('a', first.baseUrl),
      anthropic('b', second.baseUrl, 1),
    ]);
    first.script.push({ error: 'rate_limited', retryAfter: '3' });
    second.script.push({ error: 'rate_limited', retryAfter: '5' });
    expect(await textOf(pool)).toBe('a: from first');
    expect(time.waits).toEqual([3_000]);
  });

  it('says what went wrong with each endpoint when none answers', async () => {
    const { pool, time } = setup([
      anthropic('a', first.baseUrl),
      anthropic('b', second.baseUrl, 1),
    ]);
    first.failure = { error: 'auth' };
    second.failure = { error: 'rate_limited', retryAfter: '120' };
    const err = (await pool.complete(ask).catch((e: unknown) => e)) as ModelError;
    expect(err).toBeInstanceOf(ModelError);
    expect(err.kind).toBe('rate_limited');
    expect(err.retryAfterMs).toBe(120_000);
    expect(err.message).toMatch(
      /^no model endpoint answered: a disabled \(.*401.*\); b cooling until 2026-11-25T12:02:00.000Z \(.*429.*\)$/,
    );
    expect(err.message).not.toContain(KEY);
    expect(time.waits).toEqual([]);
  });

  describe('with its own timers', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    /** An endpoint whose connection fails `failures` times, then answers. */
    function flaky(failures: number): ModelClient & { calls: number } {
      const client = {
        id: 'flaky',
        provider: 'ollama' as const,
        model: 'm',
        calls: 0,
        complete: async () => {
          client.calls += 1;
          if (client.calls <= failures) throw new ModelError('connection', 'flaky: refused');
          return {
            content: [{ type: 'text' as const, text: 'up' }],
            stopReason: 'end_turn' as const,
            usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
            model: 'm',
            endpoint: 'flaky',
          };
        },
      };
      return client;
    }

    it('waits out its backoff on the timers, so fake timers drive it', async () => {
      vi.useFakeTimers();
      const client = flaky(1);
      const pool = createModelPool([{ client }], { clock: () => new Date(), log: () => {} });
      const pending = pool.complete(ask);
      await vi.advanceTimersByTimeAsync(249);
      expect(client.calls).toBe(1);
      await vi.advanceTimersByTimeAsync(1);
      expect((await pending).endpoint).toBe('flaky');
      expect(client.calls).toBe(2);
    });

    it('stops waiting when the caller aborts during a backoff', async () => {
      vi.useFakeTimers();
      const client = flaky(5);
      const pool = createModelPool([{ client }], { clock: () => new Date(), log: () => {} });
      const controller = new AbortController();
      const pending = pool.complete({ ...ask, signal: controller.signal }).catch((e: unknown) => e);
      await vi.advanceTimersByTimeAsync(100);
      controller.abort();
      expect(await pending).toMatchObject({ kind: 'aborted' });
      expect(client.calls).toBe(1);
    });
  });
});
