import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAnthropicClient } from '../../../agent/models/anthropic.js';
import { ModelError, retryAfterOf, type ModelRequest } from '../../../agent/models/types.js';
import { startFakeAnthropic, type FakeAnthropic } from '../../fakes/anthropic.js';
import { captureLog, closedPortUrl } from './helpers.js';

const KEY = 'sk-ant-test-secret-key-1234';
let fake: FakeAnthropic;

beforeEach(async () => {
  fake = await startFakeAnthropic();
});
afterEach(async () => {
  await fake.close();
});

const client = (baseUrl = fake.baseUrl, extra: { idleTimeoutMs?: number } = {}) =>
  createAnthropicClient({
    id: 'anthropic:claude-test@0',
    model: 'claude-test',
    apiKey: KEY,
    baseUrl,
    maxTokens: 1024,
    ...extra,
  });

const request = (over: Partial<ModelRequest> = {}): ModelRequest => ({
  system: 'You are a careful assistant.',
  messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }],
  tools: [],
  ...over,
});

async function failure(promise: Promise<unknown>): Promise<ModelError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ModelError);
  return err as ModelError;
}

describe('the Anthropic client', () => {
  it('streams text to onText in order and returns it with the stop reason, model and usage', async () => {
    fake.script.push({
      text: ['The ', 'ski trip ', 'is in March.'],
      usage: {
        input_tokens: 120,
        output_tokens: 9,
        cache_read_input_tokens: 800,
        cache_creation_input_tokens: 64,
      },
    });
    const deltas: string[] = [];
    const response = await client().complete(request({ onText: (d) => deltas.push(d) }));
    expect(deltas).toEqual(['The ', 'ski trip ', 'is in March.']);
    expect(response).toEqual({
      content: [{ type: 'text', text: 'The ski trip is in March.' }],
      stopReason: 'end_turn',
      usage: { input: 120, output: 9, cacheRead: 800, cacheWrite: 64 },
      model: 'claude-test',
      endpoint: 'anthropic:claude-test@0',
    });
  });

  it('assembles a tool use whose JSON input arrives in several deltas', async () => {
    const input = { query: 'where is the "ski" trip?', limit: 5, filters: { since: '2026-01-01' } };
    fake.script.push({
      text: 'Let me look.',
      toolUses: [
        { id: 'toolu_01', name: 'search_memory', input },
        { id: 'toolu_02', name: 'save_memory', input: { content: 'x' } },
      ],
    });
    const response = await client().complete(request());
    expect(response.stopReason).toBe('tool_use');
    expect(response.content).toEqual([
      { type: 'text', text: 'Let me look.' },
      { type: 'tool_use', id: 'toolu_01', name: 'search_memory', input },
      { type: 'tool_use', id: 'toolu_02', name: 'save_memory', input: { content: 'x' } },
    ]);
  });

  it('streams, and marks the system prompt and the last tool for prompt caching', async () => {
    const tools = ['search_memory', 'save_memory'].map((name) => ({
      name,
      description: `${name} tool`,
      input_schema: { type: 'object', properties: { q: { type: 'string' } } },
    }));
    await client().complete(
      request({
        tools,
        maxTokens: 300,
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'find it' }] },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: '' },
              { type: 'tool_use', id: 'toolu_9', name: 'search_memory', input: { q: 'it' } },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'toolu_9', content: 'nothing', is_error: true },
            ],
          },
        ],
      }),
    );
    const body = fake.requests[0]!.body;
    expect(body.stream).toBe(true);
    expect(body.model).toBe('claude-test');
    expect(body.max_tokens).toBe(300);
    expect(body.system).toEqual([
      { type: 'text', text: 'You are a careful assistant.', cache_control: { type: 'ephemeral' } },
    ]);
    const sent = body.tools as Array<Record<string, unknown>>;
    expect(sent.map((t) => t.cache_control)).toEqual([undefined, { type: 'ephemeral' }]);
    expect(sent[0]).toMatchObject({ name: 'search_memory', input_schema: tools[0]!.input_schema });
    // The empty text block is dropped (the API refuses them); the pair goes as it is.
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'find it' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_9', name: 'search_memory', input: { q: 'it' } }],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_9', content: 'nothing', is_error: true },
        ],
      },
    ]);
  });

  it('uses maxTokens from its endpoint when the request names none, and sends no empty tools', async () => {
    await client().complete(request());
    expect(fake.requests[0]!.body.max_tokens).toBe(1024);
    expect(fake.requests[0]!.body.tools).toBeUndefined();
  });

  it('maps 429 to rate_limited with the retry-after, asking the server once', async () => {
    fake.script.push({ error: 'rate_limited', retryAfter: '7' });
    const err = await failure(client().complete(request()));
    expect(err).toMatchObject({ kind: 'rate_limited', status: 429, retryAfterMs: 7000 });
    expect(err.endpoint).toBe('anthropic:claude-test@0');
    expect(err.message).toContain('rate limit');
    expect(fake.requests).toHaveLength(1);
  });

  it('prefers retry-after-ms, and reads retry-after as a date', () => {
    const now = new Date('2026-11-25T12:00:00Z');
    expect(retryAfterOf(new Headers({ 'retry-after-ms': '1500', 'retry-after': '9' }), now)).toBe(
      1500,
    );
    const date = new Date(now.getTime() + 4000).toUTCString();
    expect(retryAfterOf(new Headers({ 'retry-after': date }), now)).toBe(4000);
    expect(retryAfterOf(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
  });

  it('maps 529 and an overloaded error in the middle of a stream to overloaded', async () => {
    fake.script.push({ error: 'overloaded' }, { error: 'overloaded_mid_stream' });
    expect(await failure(client().complete(request()))).toMatchObject({
      kind: 'overloaded',
      status: 529,
    });
    expect((await failure(client().complete(request()))).kind).toBe('overloaded');
    expect(fake.requests).toHaveLength(2);
  });

  it('maps 401, 402 and 403 to auth without the key in the message', async () => {
    fake.script.push(
      { error: 'auth' },
      { error: 'auth', status: 402 },
      { error: 'auth', status: 403 },
    );
    for (const status of [401, 402, 403]) {
      const err = await failure(client().complete(request()));
      expect(err).toMatchObject({ kind: 'auth', status });
      expect(`${err.message} ${String(err.stack)}`).not.toContain(KEY);
    }
  });

  it('maps a prompt that is too long to context_too_long and other 400s to bad_request', async () => {
    fake.script.push(
      { error: 'prompt_too_long' },
      { error: 'bad_request', message: 'tools.0: bad' },
    );
    expect(await failure(client().complete(request()))).toMatchObject({
      kind: 'context_too_long',
      status: 400,
    });
    const bad = await failure(client().complete(request()));
    expect(bad).toMatchObject({ kind: 'bad_request', status: 400 });
    expect(bad.message).toContain('tools.0: bad');
  });

  it('maps a 500 to server', async () => {
    fake.script.push({ error: 'server' });
    expect(await failure(client().complete(request()))).toMatchObject({
      kind: 'server',
      status: 500,
    });
  });

  it('maps a refused connection to connection, naming the provider, model and URL', async () => {
    const url = await closedPortUrl();
    const err = await failure(client(url).complete(request()));
    expect(err.kind).toBe('connection');
    expect(err.message).toContain(`anthropic:claude-test@0 (anthropic claude-test at ${url})`);
    expect(err.message).not.toContain(KEY);
  });

  it('logs the SDK deprecation notice once per model and never prints it', async () => {
    const warn = vi.spyOn(console, 'warn');
    const { log, lines } = captureLog();
    const warnedModels = new Set<string>();
    const old = (id: string) =>
      createAnthropicClient({
        id,
        model: 'claude-sonnet-4-5',
        apiKey: KEY,
        baseUrl: fake.baseUrl,
        maxTokens: 64,
        log,
        warnedModels,
      });
    fake.script.push({ text: 'one' }, { text: 'two' }, { text: 'three' });
    await old('a@0').complete(request());
    await old('a@0').complete(request());
    await old('a@1').complete(request());
    try {
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
    const deprecated = lines.filter((line) => line.event === 'model_deprecated');
    expect(deprecated).toHaveLength(1);
    expect(deprecated[0]).toMatchObject({ level: 'warn', fields: { model: 'claude-sonnet-4-5' } });
    expect(String(deprecated[0]!.fields.notice)).toContain('end-of-life');
  });

  it('rejects with aborted soon after the signal fires mid-stream, and closes the connection', async () => {
    fake.script.push({ error: 'stall' });
    const controller = new AbortController();
    const deltas: string[] = [];
    const pending = client().complete(
      request({
        signal: controller.signal,
        onText: (d) => {
          deltas.push(d);
          controller.abort(); // the first words arrived: the user pressed Ctrl-C
        },
      }),
    );
    const started = performance.now();
    const err = await failure(pending);
    expect(err.kind).toBe('aborted');
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(deltas).toEqual(['Let me think']);
    await fake.waitForClientClose(0);
    expect(fake.requests[0]!.clientClosed).toBe(true);
  });

  it('rejects with aborted without a request when the signal has already fired', async () => {
    const err = await failure(client().complete(request({ signal: AbortSignal.abort() })));
    expect(err.kind).toBe('aborted');
    expect(fake.requests).toHaveLength(0);
  });

  it('gives up on a stream that goes quiet, as a connection error, and closes it', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      fake.script.push({ error: 'stall' });
      let wrote!: () => void;
      const firstWords = new Promise<void>((resolve) => (wrote = resolve));
      let settled = false;
      const pending = client(fake.baseUrl, { idleTimeoutMs: 60_000 })
        .complete(request({ onText: () => wrote() }))
        .catch((e: unknown) => e)
        .finally(() => (settled = true));
      await firstWords;
      await vi.advanceTimersByTimeAsync(59_000);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1_000);
      const err = (await pending) as ModelError;
      expect(err).toBeInstanceOf(ModelError);
      expect(err.kind).toBe('connection');
      expect(err.message).toContain('stalled');
      await fake.waitForClientClose(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
