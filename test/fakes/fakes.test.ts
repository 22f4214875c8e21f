import Anthropic from '@anthropic-ai/sdk';
import { Ollama } from 'ollama';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeAnthropic } from './anthropic.js';
import { startFakeOllamaChat, type FakeOllamaChat } from './ollama.js';
import { startFakeOpenAI, type FakeOpenAI } from './openai.js';

// The fakes speak the wire formats the real SDKs parse; the clients' own tests go further.

let anthropic: FakeAnthropic | undefined;
let ollama: FakeOllamaChat | undefined;
let openai: FakeOpenAI | undefined;
afterEach(async () => {
  await anthropic?.close();
  await ollama?.close();
  await openai?.close();
  anthropic = ollama = openai = undefined;
});

describe('the fake Anthropic server', () => {
  it('streams a scripted reply that the SDK assembles into text and a tool use', async () => {
    anthropic = await startFakeAnthropic();
    anthropic.script.push({
      text: ['Hel', 'lo'],
      toolUses: [{ id: 'toolu_1', name: 'search_memory', input: { query: 'ski trip', limit: 3 } }],
      usage: { input_tokens: 50, output_tokens: 9, cache_read_input_tokens: 40 },
    });
    const sdk = new Anthropic({ apiKey: 'k', baseURL: anthropic.baseUrl, maxRetries: 0 });
    const deltas: string[] = [];
    const stream = sdk.messages.stream({
      model: 'claude-x',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
    });
    stream.on('text', (d) => deltas.push(d));
    const message = await stream.finalMessage();
    expect(deltas).toEqual(['Hel', 'lo']);
    expect(message.content).toMatchObject([
      { type: 'text', text: 'Hello' },
      { type: 'tool_use', id: 'toolu_1', input: { query: 'ski trip', limit: 3 } },
    ]);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.usage).toMatchObject({ input_tokens: 50, output_tokens: 9 });
    expect(anthropic.requests[0]!.body.stream).toBe(true);
    // This SDK sends the key as a bearer token.
    expect(anthropic.requests[0]!.headers.authorization).toBe('Bearer k');
  });

  it('answers a request that does not stream with one JSON message', async () => {
    anthropic = await startFakeAnthropic();
    anthropic.script.push({ text: 'plain' });
    const sdk = new Anthropic({ apiKey: 'k', baseURL: anthropic.baseUrl, maxRetries: 0 });
    const message = await sdk.messages.create({
      model: 'claude-x',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(message.content).toMatchObject([{ type: 'text', text: 'plain' }]);
    expect(message.stop_reason).toBe('end_turn');
  });

  it('fails with the status, error type and retry-after the SDK reports', async () => {
    anthropic = await startFakeAnthropic();
    anthropic.script.push({ error: 'rate_limited', retryAfter: '7' }, { error: 'overloaded' });
    const sdk = new Anthropic({ apiKey: 'k', baseURL: anthropic.baseUrl, maxRetries: 0 });
    const ask = () =>
      sdk.messages.create({
        model: 'm',
        max_tokens: 5,
        messages: [{ role: 'user', content: 'x' }],
      });
    const limited = await ask().catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(Anthropic.RateLimitError);
    expect((limited as InstanceType<typeof Anthropic.APIError>).headers?.get('retry-after')).toBe(
      '7',
    );
    const overloaded = await ask().catch((e: unknown) => e);
    expect(overloaded).toMatchObject({ status: 529, type: 'overloaded_error' });
  });
});

describe('the fake Ollama server', () => {
  it('streams chat chunks and tool calls without ids to the ollama package', async () => {
    ollama = await startFakeOllamaChat();
    ollama.script.push({
      text: ['a', 'b'],
      toolCalls: [{ name: 'save_memory', arguments: { content: 'x' } }],
      promptEvalCount: 30,
      evalCount: 4,
    });
    const client = new Ollama({ host: ollama.host });
    const chunks = await client.chat({
      model: 'llama3.1',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    const got: Array<{ content: string; calls?: unknown; done: boolean }> = [];
    for await (const c of chunks) {
      got.push({ content: c.message.content, calls: c.message.tool_calls, done: c.done });
    }
    expect(got.map((c) => c.content).join('')).toBe('ab');
    expect(got.find((c) => c.calls)?.calls).toEqual([
      { function: { name: 'save_memory', arguments: { content: 'x' } } },
    ]);
    expect(got.at(-1)?.done).toBe(true);
    expect(ollama.requests[0]!.body.model).toBe('llama3.1');
  });
});

describe('the fake OpenAI-compatible server', () => {
  it('streams text and a tool call in pieces that the openai package assembles, usage last', async () => {
    openai = await startFakeOpenAI();
    openai.script.push({
      text: ['Hel', 'lo'],
      toolCalls: [
        { id: 'call_1', name: 'search_memory', arguments: { query: 'ski trip', limit: 3 } },
      ],
      usage: { prompt_tokens: 50, completion_tokens: 9, cached_tokens: 40 },
    });
    const sdk = new OpenAI({ apiKey: 'k', baseURL: openai.baseUrl, maxRetries: 0 });
    const deltas: string[] = [];
    const stream = sdk.chat.completions.stream({
      model: 'gpt-fake',
      messages: [{ role: 'user', content: 'hi' }],
      stream_options: { include_usage: true },
    });
    stream.on('content', (delta) => deltas.push(delta));
    const completion = await stream.finalChatCompletion();
    expect(deltas).toEqual(['Hel', 'lo']);
    const message = completion.choices[0]!.message;
    expect(message.content).toBe('Hello');
    expect(message.tool_calls).toMatchObject([
      { id: 'call_1', type: 'function', function: { name: 'search_memory' } },
    ]);
    const call = message.tool_calls![0]!;
    expect(call.type === 'function' && JSON.parse(call.function.arguments)).toEqual({
      query: 'ski trip',
      limit: 3,
    });
    expect(completion.choices[0]!.finish_reason).toBe('tool_calls');
    expect(completion.usage).toMatchObject({
      prompt_tokens: 50,
      completion_tokens: 9,
      prompt_tokens_details: { cached_tokens: 40 },
    });
    expect(openai.requests[0]!.headers.authorization).toBe('Bearer k');
  });

  it('answers a request that does not stream with one completion, and lists its models', async () => {
    openai = await startFakeOpenAI();
    openai.script.push({ text: 'plain' });
    const sdk = new OpenAI({ apiKey: 'k', baseURL: openai.baseUrl, maxRetries: 0 });
    const completion = await sdk.chat.completions.create({
      model: 'gpt-fake',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(completion.choices[0]!.message.content).toBe('plain');
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    const models = [];
    for await (const model of sdk.models.list()) models.push(model.id);
    expect(models).toEqual(['gpt-fake']);
  });

  it('fails with the status, code and retry-after the openai package reports', async () => {
    openai = await startFakeOpenAI();
    openai.script.push({ error: 'rate_limited', retryAfter: '7' }, { error: 'context_too_long' });
    const sdk = new OpenAI({ apiKey: 'k', baseURL: openai.baseUrl, maxRetries: 0 });
    const ask = () =>
      sdk.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    const limited = await ask().catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
    expect((limited as InstanceType<typeof OpenAI.APIError>).headers?.get('retry-after')).toBe('7');
    const long = await ask().catch((e: unknown) => e);
    expect(long).toBeInstanceOf(OpenAI.BadRequestError);
    expect(long).toMatchObject({ status: 400, code: 'context_length_exceeded' });
  });
});
