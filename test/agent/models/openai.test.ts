import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { modelsConfig } from '../../../agent/models/config.js';
import { createModels } from '../../../agent/models/create.js';
import { createOpenAIClient } from '../../../agent/models/openai.js';
import { ModelError, type ModelRequest, type ToolUseBlock } from '../../../agent/models/types.js';
import { BrainError } from '../../../src/index.js';
import { startFakeAnthropic, type FakeAnthropic } from '../../fakes/anthropic.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai.js';
import { captureLog, closedPortUrl, manualTime } from './helpers.js';

let fake: FakeOpenAI;
beforeEach(async () => {
  fake = await startFakeOpenAI();
});
afterEach(async () => {
  await fake.close();
});

const client = (baseUrl = fake.baseUrl, extra: { apiKey?: string; idleTimeoutMs?: number } = {}) =>
  createOpenAIClient({
    id: 'openai:gpt-fake@0',
    model: 'gpt-fake',
    baseUrl,
    maxTokens: 512,
    ...extra,
  });

const request = (over: Partial<ModelRequest> = {}): ModelRequest => ({
  system: 'Be brief.',
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

describe('the OpenAI-compatible client', () => {
  it('streams text to onText and reports usage with the cached part apart', async () => {
    fake.script.push({
      text: ['Hi ', 'there.'],
      usage: { prompt_tokens: 300, completion_tokens: 4, cached_tokens: 256 },
    });
    const deltas: string[] = [];
    const response = await client().complete(request({ onText: (d) => deltas.push(d) }));
    expect(deltas).toEqual(['Hi ', 'there.']);
    expect(response).toEqual({
      content: [{ type: 'text', text: 'Hi there.' }],
      stopReason: 'end_turn',
      usage: { input: 44, output: 4, cacheRead: 256, cacheWrite: 0 },
      model: 'gpt-fake',
      endpoint: 'openai:gpt-fake@0',
    });
    expect(fake.requests[0]!.body).toMatchObject({
      model: 'gpt-fake',
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 512,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hello' },
      ],
    });
    expect(fake.requests[0]!.body).not.toHaveProperty('tools');
  });

  it('assembles tool calls whose arguments arrive in pieces, keeping their ids', async () => {
    fake.script.push({
      toolCalls: [
        { id: 'call_a', name: 'search_memory', arguments: { query: 'ski trip', limit: 3 } },
        { id: 'call_b', name: 'save_memory', arguments: { content: 'likes skiing' } },
      ],
    });
    const response = await client().complete(request());
    expect(response.stopReason).toBe('tool_use');
    expect(response.content).toEqual([
      {
        type: 'tool_use',
        id: 'call_a',
        name: 'search_memory',
        input: { query: 'ski trip', limit: 3 },
      },
      { type: 'tool_use', id: 'call_b', name: 'save_memory', input: { content: 'likes skiing' } },
    ]);
  });

  it('keeps arguments that are not JSON whole, for the tool to refuse', async () => {
    fake.script.push({ toolCalls: [{ id: 'call_x', name: 'search_memory', arguments: 'ski {' }] });
    const [use] = (await client().complete(request())).content as ToolUseBlock[];
    expect(use!.input).toEqual({ input: 'ski {' });
  });

  it('sends tools as functions, tool calls with JSON arguments and results as tool messages', async () => {
    await client().complete(
      request({
        tools: [
          {
            name: 'search_memory',
            description: 'Search',
            input_schema: { type: 'object', properties: { query: { type: 'string' } } },
          },
        ],
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'find ski' }] },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'Looking.' },
              { type: 'tool_use', id: 'call_1', name: 'search_memory', input: { query: 'ski' } },
              { type: 'tool_use', id: 'call_2', name: 'search_memory', input: { query: 'snow' } },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'call_1', content: 'a ski trip' },
              { type: 'tool_result', tool_use_id: 'call_2', content: 'no index', is_error: true },
              { type: 'text', text: 'and?' },
            ],
          },
        ],
      }),
    );
    const body = fake.requests[0]!.body;
    expect(body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'search_memory',
          description: 'Search',
          parameters: { type: 'object', properties: { query: { type: 'string' } } },
        },
      },
    ]);
    expect(body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'find ski' },
      {
        role: 'assistant',
        content: 'Looking.',
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'search_memory', arguments: '{"query":"ski"}' },
          },
          {
            id: 'call_2',
            type: 'function',
            function: { name: 'search_memory', arguments: '{"query":"snow"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'a ski trip' },
      { role: 'tool', tool_call_id: 'call_2', content: 'Error: no index' },
      { role: 'user', content: 'and?' },
    ]);
  });

  it('sends the key as a bearer token only when it has one', async () => {
    await client(fake.baseUrl, { apiKey: 'sk-secret' }).complete(request());
    await client().complete(request());
    expect(fake.requests.map((r) => r.headers.authorization)).toEqual([
      'Bearer sk-secret',
      undefined,
    ]);
  });

  it('reads a server that answers with one completion although asked to stream', async () => {
    // The fake answers by the body it recorded: turning `stream` off plays a server that ignores it.
    fake.script.push((req) => {
      req.body.stream = false;
      return { text: 'whole', finishReason: 'length' };
    });
    const response = await client().complete(request());
    expect(response.content).toEqual([{ type: 'text', text: 'whole' }]);
    expect(response.stopReason).toBe('max_tokens');
  });

  it('maps 429 to rate_limited with its retry-after, asking the server once', async () => {
    fake.script.push({ error: 'rate_limited', retryAfter: '7' });
    const err = await failure(client().complete(request()));
    expect(err).toMatchObject({ kind: 'rate_limited', status: 429, retryAfterMs: 7000 });
    expect(fake.requests).toHaveLength(1);
  });

  it('maps 401 and 403 to auth without the key in the message', async () => {
    fake.apiKey = 'the-right-key';
    const err = await failure(client(fake.baseUrl, { apiKey: 'sk-wrong-key' }).complete(request()));
    expect(err.kind).toBe('auth');
    expect(err.message).not.toContain('sk-wrong-key');
    fake.apiKey = undefined;
    fake.script.push({ error: 'auth', status: 403 });
    expect((await failure(client().complete(request()))).kind).toBe('auth');
  });

  it('maps a context that is too long, a 500, a 503 and an error mid-stream', async () => {
    fake.script.push(
      { error: 'context_too_long' },
      { error: 'server' },
      { error: 'overloaded' },
      { error: 'error_mid_stream' },
    );
    const kinds = [];
    for (let i = 0; i < 4; i++) kinds.push((await failure(client().complete(request()))).kind);
    expect(kinds).toEqual(['context_too_long', 'server', 'overloaded', 'server']);
  });

  it('maps a refused connection to connection, naming the provider, model and URL', async () => {
    const url = `${await closedPortUrl()}/v1`;
    const err = await failure(client(url).complete(request()));
    expect(err.kind).toBe('connection');
    expect(err.message).toContain(`openai gpt-fake at ${url}`);
  });

  it('rejects with aborted when the signal fires mid-stream, and closes the connection', async () => {
    fake.script.push({ error: 'stall' });
    const controller = new AbortController();
    const pending = client().complete(
      request({ signal: controller.signal, onText: () => controller.abort() }),
    );
    expect((await failure(pending)).kind).toBe('aborted');
    await fake.waitForClientClose(0);
    expect(fake.requests[0]!.clientClosed).toBe(true);
  });

  it('gives up on a stream that goes quiet, as a connection error', async () => {
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

describe('an openai endpoint in the pool', () => {
  let anthropic: FakeAnthropic;
  beforeEach(async () => {
    anthropic = await startFakeAnthropic();
  });
  afterEach(async () => {
    await anthropic.close();
  });

  it('fails over from OpenAI on 429 to Anthropic and back once the retry-after has passed', async () => {
    const config = modelsConfig.parse({
      endpoints: [
        {
          provider: 'openai',
          model: 'gpt-fake',
          baseUrl: fake.baseUrl,
          apiKeyEnv: 'OPENROUTER_API_KEY',
        },
        { provider: 'anthropic', model: 'claude-b', baseUrl: anthropic.baseUrl, priority: 1 },
      ],
    });
    const time = manualTime();
    const { pool } = createModels(
      config,
      { anthropicApiKey: 'k', apiKeys: { OPENROUTER_API_KEY: 'sk-or' } },
      { clock: time.clock, sleep: time.sleep, log: captureLog().log },
    );
    fake.script.push({ error: 'rate_limited', retryAfter: '20' });
    const first = await pool.complete(request());
    expect(first.endpoint).toBe('anthropic:claude-b@1');
    expect(fake.requests[0]!.headers.authorization).toBe('Bearer sk-or');
    time.advance(10_000);
    expect((await pool.complete(request())).endpoint).toBe('anthropic:claude-b@1');
    time.advance(11_000);
    expect((await pool.complete(request())).endpoint).toBe('openai:gpt-fake@0');
    expect(fake.requests).toHaveLength(2);
    expect(anthropic.requests).toHaveLength(2);
  });

  it('refuses an endpoint whose key variable is not set, naming the key path, and a key variable on another provider', () => {
    const config = modelsConfig.parse({
      endpoints: [{ provider: 'openai', model: 'gpt-4o', apiKeyEnv: 'OPENAI_API_KEY' }],
    });
    const time = manualTime();
    const attempt = () =>
      createModels(config, { apiKeys: {} }, { clock: time.clock, log: captureLog().log });
    expect(attempt).toThrow(BrainError);
    expect(attempt).toThrow(/^models\.endpoints\.0\.apiKeyEnv: OPENAI_API_KEY is not set/);
    const wrong = modelsConfig.safeParse({
      endpoints: [{ provider: 'anthropic', model: 'c', apiKeyEnv: 'X' }],
    });
    expect(wrong.success).toBe(false);
    const bare = modelsConfig.safeParse({ endpoints: [{ provider: 'openai', model: 'gpt-4o' }] });
    expect(bare.error?.issues[0]?.path).toEqual(['endpoints', 0, 'baseUrl']);
  });
});
