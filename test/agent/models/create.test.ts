import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { modelsConfig } from '../../../agent/models/config.js';
import { createModels } from '../../../agent/models/create.js';
import type { ModelRequest } from '../../../agent/models/types.js';
import { BrainError } from '../../../src/index.js';
import { startFakeAnthropic, type FakeAnthropic } from '../../fakes/anthropic.js';
import { startFakeOllamaChat, type FakeOllamaChat } from '../../fakes/ollama.js';
import { captureLog, closedPortUrl, manualTime } from './helpers.js';
import { DEFAULT_ANTHROPIC_MODEL, defaultModels } from '../../../agent/config.js';

let envAnthropic: FakeAnthropic;
let ownAnthropic: FakeAnthropic;
let ollama: FakeOllamaChat;
beforeEach(async () => {
  [envAnthropic, ownAnthropic, ollama] = await Promise.all([
    startFakeAnthropic(),
    startFakeAnthropic(),
    startFakeOllamaChat(),
  ]);
});
afterEach(async () => {
  await Promise.all([envAnthropic.close(), ownAnthropic.close(), ollama.close()]);
});

const ask: ModelRequest = {
  system: 's',
  messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
  tools: [],
};
const options = () => {
  const time = manualTime();
  return { clock: time.clock, sleep: time.sleep, log: captureLog().log };
};

describe('createModels', () => {
  it('names endpoints provider:model@index and sends each to its URL, else the environment’s', async () => {
    const config = modelsConfig.parse({
      endpoints: [
        { provider: 'anthropic', model: 'claude-a', maxTokens: 77 },
        { provider: 'anthropic', model: 'claude-b', baseUrl: ownAnthropic.baseUrl },
        { provider: 'ollama', model: 'llama3.1' },
      ],
    });
    const { pool, compaction } = createModels(
      config,
      { anthropicApiKey: 'key-1', anthropicBaseUrl: envAnthropic.baseUrl, ollamaHost: ollama.host },
      options(),
    );
    expect(compaction).toBe(pool);
    expect(pool.status().map((s) => s.id)).toEqual([
      'anthropic:claude-a@0',
      'anthropic:claude-b@1',
      'ollama:llama3.1@2',
    ]);
    const served = [];
    for (let i = 0; i < 3; i++) served.push((await pool.complete(ask)).endpoint);
    expect(served).toEqual(['anthropic:claude-a@0', 'anthropic:claude-b@1', 'ollama:llama3.1@2']);
    expect(envAnthropic.requests[0]!.body).toMatchObject({ model: 'claude-a', max_tokens: 77 });
    expect(envAnthropic.requests[0]!.headers.authorization).toBe('Bearer key-1');
    expect(ownAnthropic.requests[0]!.body).toMatchObject({ model: 'claude-b', max_tokens: 4096 });
    expect(ollama.requests[0]!.body).toMatchObject({ model: 'llama3.1' });
  });

  it('refuses an anthropic endpoint without ANTHROPIC_API_KEY, naming the key path', () => {
    const config = modelsConfig.parse({
      endpoints: [
        { provider: 'ollama', model: 'llama3.1' },
        { provider: 'anthropic', model: 'claude-a' },
      ],
    });
    const attempt = () => createModels(config, { ollamaHost: ollama.host }, options());
    expect(attempt).toThrow(BrainError);
    expect(attempt).toThrow(/^models\.endpoints\.1\.provider: anthropic needs ANTHROPIC_API_KEY/);
  });

  it('summarises with the compaction model first, and with the pool’s endpoints when it is out', async () => {
    const config = modelsConfig.parse({
      endpoints: [{ provider: 'anthropic', model: 'claude-main', baseUrl: ownAnthropic.baseUrl }],
      compactionModel: { provider: 'ollama', model: 'qwen3', baseUrl: ollama.host },
    });
    const { pool, compaction } = createModels(config, { anthropicApiKey: 'k' }, options());
    expect(compaction).not.toBe(pool);
    expect((await compaction.complete(ask)).endpoint).toBe('ollama:qwen3@compaction');
    ollama.failure = { error: 'server' };
    expect((await compaction.complete(ask)).endpoint).toBe('anthropic:claude-main@0');
    expect(ollama.requests.map((r) => r.body.model)).toEqual(['qwen3', 'qwen3']);
  });

  it('says a missing ANTHROPIC_API_KEY made Ollama the default when Ollama does not answer', async () => {
    const url = await closedPortUrl();
    const models = defaultModels(false);
    const { pool } = createModels(models, { ollamaHost: url }, options());
    const err = (await pool.complete(ask).catch((e: unknown) => e)) as Error;
    expect(err.message).toContain(
      `no ANTHROPIC_API_KEY set, so the default is Ollama at ${url}, which did not answer`,
    );
  });

  it('defaults to a Sonnet the installed SDK does not deprecate', async () => {
    const warn = vi.spyOn(console, 'warn');
    const { log, lines } = captureLog();
    const { pool } = createModels(
      defaultModels(true),
      { anthropicApiKey: 'sk-test', anthropicBaseUrl: envAnthropic.baseUrl },
      { ...options(), log },
    );
    envAnthropic.script.push({ text: 'hi' });
    await pool.complete(ask);
    try {
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
    expect(envAnthropic.requests[0]!.body).toMatchObject({ model: DEFAULT_ANTHROPIC_MODEL });
    expect(lines.filter((line) => line.event === 'model_deprecated')).toEqual([]);
  });
});
