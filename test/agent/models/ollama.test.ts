import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createOllamaClient } from '../../../agent/models/ollama.js';
import { ModelError, type ModelRequest, type ToolUseBlock } from '../../../agent/models/types.js';
import { startFakeOllamaChat, type FakeOllamaChat } from '../../fakes/ollama.js';
import { closedPortUrl } from './helpers.js';

let fake: FakeOllamaChat;
beforeEach(async () => {
  fake = await startFakeOllamaChat();
});
afterEach(async () => {
  await fake.close();
});

const client = (host = fake.host, extra: { idleTimeoutMs?: number } = {}) =>
  createOllamaClient({
    id: 'ollama:llama3.1@1',
    model: 'llama3.1',
    host,
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

describe('the Ollama client', () => {
  it('streams text to onText and reports the prompt and eval counts as usage', async () => {
    fake.script.push({ text: ['Hi ', 'there.'], promptEvalCount: 321, evalCount: 4 });
    const deltas: string[] = [];
    const response = await client().complete(request({ onText: (d) => deltas.push(d) }));
    expect(deltas).toEqual(['Hi ', 'there.']);
    expect(response).toEqual({
      content: [{ type: 'text', text: 'Hi there.' }],
      stopReason: 'end_turn',
      usage: { input: 321, output: 4, cacheRead: 0, cacheWrite: 0 },
      model: 'llama3.1',
      endpoint: 'ollama:llama3.1@1',
    });
    expect(fake.requests[0]!.body).toMatchObject({
      model: 'llama3.1',
      stream: true,
      options: { num_predict: 512 },
    });
  });

  it('gives each of its tool calls a unique id, even two calls of the same tool', async () => {
    fake.script.push({
      toolCalls: [
        { name: 'search_memory', arguments: { query: 'ski' } },
        { name: 'search_memory', arguments: { query: 'ski' } },
      ],
    });
    const response = await client().complete(request());
    expect(response.stopReason).toBe('tool_use');
    const uses = response.content as ToolUseBlock[];
    expect(uses.map((u) => [u.type, u.name, u.input])).toEqual([
      ['tool_use', 'search_memory', { query: 'ski' }],
      ['tool_use', 'search_memory', { query: 'ski' }],
    ]);
    expect(uses[0]!.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(uses[1]!.id).not.toBe(uses[0]!.id);
  });

  it('sends the system prompt, tools as functions, tool calls and their results as tool messages', async () => {
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
              { type: 'tool_use', id: 'call_a', name: 'search_memory', input: { query: 'ski' } },
              { type: 'tool_use', id: 'call_b', name: 'save_memory', input: { content: 'c' } },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'call_a', content: 'March, Alps' },
              { type: 'tool_result', tool_use_id: 'call_b', content: 'denied', is_error: true },
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
          { function: { name: 'search_memory', arguments: { query: 'ski' } } },
          { function: { name: 'save_memory', arguments: { content: 'c' } } },
        ],
      },
      { role: 'tool', content: 'March, Alps', tool_name: 'search_memory' },
      { role: 'tool', content: 'Error: denied', tool_name: 'save_memory' },
    ]);
  });

  it('says max_tokens when Ollama stopped for length', async () => {
    fake.script.push({ text: 'cut', doneReason: 'length' });
    expect((await client().complete(request())).stopReason).toBe('max_tokens');
  });

  it('maps a refused connection to connection and a missing model to server', async () => {
    expect((await failure(client(await closedPortUrl()).complete(request()))).kind).toBe(
      'connection',
    );
    fake.script.push({ error: 'model_not_found' });
    const err = await failure(client().complete(request()));
    expect(err).toMatchObject({ kind: 'server', status: 404 });
    expect(err.message).toContain('not found');
  });

  it('rejects with aborted mid-stream and closes the connection', async () => {
    fake.script.push({ error: 'stall' });
    const controller = new AbortController();
    const pending = client().complete(
      request({ signal: controller.signal, onText: () => controller.abort() }),
    );
    expect((await failure(pending)).kind).toBe('aborted');
    await fake.waitForClientClose(0);
    expect(fake.requests[0]!.clientClosed).toBe(true);
  });

  it('rejects with aborted while waiting for the response to start', async () => {
    const controller = new AbortController();
    fake.script.push(() => {
      controller.abort(); // the request reached the server, which has not answered yet
      return { error: 'stall', silent: true };
    });
    const err = await failure(client().complete(request({ signal: controller.signal })));
    expect(err.kind).toBe('aborted');
    await fake.waitForClientClose(0);
    expect(fake.requests[0]!.clientClosed).toBe(true);
  });

  it('gives up on a model that answers nothing for its idle timeout, as a connection error', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      let arrived!: () => void;
      const atServer = new Promise<void>((resolve) => (arrived = resolve));
      fake.script.push(() => {
        arrived();
        return { error: 'stall', silent: true };
      });
      let settled = false;
      const pending = client(fake.host, { idleTimeoutMs: 300_000 })
        .complete(request())
        .catch((e: unknown) => e)
        .finally(() => (settled = true));
      await atServer;
      await vi.advanceTimersByTimeAsync(299_000);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1_000);
      expect(await pending).toMatchObject({ kind: 'connection' });
      await fake.waitForClientClose(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
