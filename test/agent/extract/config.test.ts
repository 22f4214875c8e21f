import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configuredExtractor } from '../../../agent/extract/create.js';
import { silentLog } from '../../../agent/log.js';
import { tempDir } from '../../helpers.js';
import { assistantConfig } from './helpers.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('brain-extract-config-')));
afterEach(() => cleanup());

const endpoints = [
  { provider: 'anthropic', model: 'claude-sonnet-4-5' },
  { provider: 'ollama', model: 'llama3.1' },
  { provider: 'ollama', model: 'qwen3', baseUrl: 'http://127.0.0.1:1' },
  { provider: 'ollama', model: 'qwen3', baseUrl: 'http://127.0.0.1:2' },
];
const load = (extract: unknown, env?: Record<string, string>) =>
  assistantConfig(dir, { models: { endpoints }, extract }, env);

describe('extract in the assistant config', () => {
  it('names an endpoint of models.endpoints by index, model, provider:model or id', () => {
    expect(load({}).extract).toEqual({ model: undefined, threads: undefined });
    expect(assistantConfig(dir, {}).extract).toBeUndefined();
    expect(load({ model: 1 }).extract?.model).toMatchObject({ index: 1, id: 'ollama:llama3.1@1' });
    expect(load({ model: '0' }).extract?.model?.id).toBe('anthropic:claude-sonnet-4-5@0');
    expect(load({ model: 'llama3.1' }).extract?.model?.index).toBe(1);
    expect(load({ model: 'anthropic:claude-sonnet-4-5' }).extract?.model?.index).toBe(0);
    expect(load({ model: 'ollama:qwen3@3' }).extract?.model).toMatchObject({
      index: 3,
      endpoint: { model: 'qwen3', baseUrl: 'http://127.0.0.1:2' },
    });
    expect(load({ threads: 'tagged' }).extract?.threads).toBe('tagged');
  });

  it('refuses what names no endpoint, or two, by its key path', () => {
    expect(() => load({ model: 'gpt-5' })).toThrow(
      /assistant\.json: extract\.model: no endpoint named "gpt-5" \(models\.endpoints has anthropic:claude-sonnet-4-5@0, ollama:llama3\.1@1, ollama:qwen3@2, ollama:qwen3@3\)/,
    );
    expect(() => load({ model: 4 })).toThrow(
      /extract\.model: no endpoint 4 \(models\.endpoints has/,
    );
    expect(() => load({ model: 'qwen3' })).toThrow(
      /extract\.model: "qwen3" names 2 endpoints \(ollama:qwen3@2, ollama:qwen3@3\): give its index/,
    );
    expect(() => load({ model: '' })).toThrow(/extract\.model: must not be empty/);
    expect(() => load({ model: -1 })).toThrow(/extract\.model/);
    expect(() => load({ threads: 'some' })).toThrow(
      /extract\.threads: must be one of all, tagged, none/,
    );
    expect(() => load({ modle: 'x' })).toThrow(/extract\.modle: unknown key/);
  });

  it('names the default endpoint when the config has no models', () => {
    const config = assistantConfig(dir, { extract: { model: 0 } }, {});
    expect(config.extract?.model?.id).toBe('ollama:llama3.1@0');
  });

  it('builds no extractor without extract.model, and refuses an Anthropic one without a key', () => {
    const deps = { log: silentLog, clock: () => new Date() };
    expect(configuredExtractor(load({}), deps)).toBeUndefined();
    expect(configuredExtractor(load({ model: 1 }), deps)?.extractor).toMatchObject({
      name: 'model',
      version: 1,
    });
    expect(() => configuredExtractor(load({ model: 0 }, {}), deps)).toThrow(
      /extract\.model: anthropic:claude-sonnet-4-5@0 is an anthropic endpoint and needs ANTHROPIC_API_KEY/,
    );
  });
});
