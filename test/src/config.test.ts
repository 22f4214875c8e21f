import { describe, expect, it } from 'vitest';
import { loadConfig, type ConfigOverrides } from '../../src/index.js';
import { configSchema } from '../../src/config.js';
import { quickConfig, rawConfig } from '../../src/config-env.js';

describe('loadConfig', () => {
  it('defaults the database under XDG_DATA_HOME, else ~/.local/share', () => {
    expect(loadConfig({ XDG_DATA_HOME: '/data' }).dbPath).toBe('/data/brain/brain.db');
    expect(loadConfig({ HOME: '/home/u' }).dbPath).toBe('/home/u/.local/share/brain/brain.db');
  });

  it('lets flags win over variables', () => {
    const env = { BRAIN_DB: '/env.db', BRAIN_AGENT: 'env-agent' };
    expect(loadConfig(env)).toMatchObject({ dbPath: '/env.db', agent: 'env-agent' });
    expect(loadConfig(env, { db: '/flag.db', agent: 'flag-agent' })).toMatchObject({
      dbPath: '/flag.db',
      agent: 'flag-agent',
    });
  });

  it('accepts an Ollama host without a scheme', () => {
    expect(loadConfig({ OLLAMA_HOST: '10.0.0.5:11434' }).ollamaHost).toBe('http://10.0.0.5:11434');
  });

  it('names the setting that is wrong', () => {
    expect(() => loadConfig({ BRAIN_EMBEDDER: 'magic' })).toThrow(/BRAIN_EMBEDDER: must be one of/);
    expect(() => loadConfig({ BRAIN_AGENT: 'no spaces' })).toThrow(
      /--agent \/ BRAIN_AGENT: must be letters/,
    );
    expect(() => loadConfig({ BRAIN_MAX_BODY_BYTES: '-1' })).toThrow(/BRAIN_MAX_BODY_BYTES/);
  });
});

describe('quickConfig', () => {
  const variations: Record<string, string>[] = [
    {},
    { BRAIN_DB: '/x.db', BRAIN_AGENT: 'nova' },
    { BRAIN_AGENT: '' },
    { BRAIN_AGENT: 'no spaces' },
    { BRAIN_AGENT: 'x'.repeat(65) },
    { BRAIN_EMBEDDER: 'none' },
    { BRAIN_EMBEDDER: 'AUTO' },
    { OLLAMA_HOST: 'localhost:11434' },
    { OLLAMA_HOST: 'https://ollama.example.com/base/' },
    { OLLAMA_HOST: 'http://[::1]:11434' },
    { OLLAMA_HOST: ' http://127.0.0.1:11434 ' },
    { OLLAMA_HOST: 'http://exa\tmple.com' },
    { OLLAMA_HOST: '\u00a0http://x' },
    { OLLAMA_HOST: 'http://x:99999' },
    { OLLAMA_HOST: 'http://a b' },
    { OLLAMA_HOST: 'not a url' },
    { BRAIN_EMBED_MODEL: 'all-minilm' },
    { BRAIN_MAX_BODY_BYTES: '2048' },
    { BRAIN_MAX_BODY_BYTES: ' 12 ' },
    { BRAIN_MAX_BODY_BYTES: '1e3' },
    { BRAIN_MAX_BODY_BYTES: '0x10' },
    { BRAIN_MAX_BODY_BYTES: '0' },
    { BRAIN_MAX_BODY_BYTES: '-1' },
    { BRAIN_MAX_BODY_BYTES: '1.5' },
    { BRAIN_MAX_BODY_BYTES: '9007199254740993' },
    { BRAIN_MAX_BODY_BYTES: 'Infinity' },
    { BRAIN_MAX_BODY_BYTES: 'lots' },
    { BRAIN_LOG_LEVEL: 'debug' },
    { BRAIN_LOG_LEVEL: 'verbose' },
    { BRAIN_DURABILITY: 'full' },
    { BRAIN_DURABILITY: 'FULL' },
  ];
  const overrides: ConfigOverrides[] = [{}, { db: '' }, { agent: '' }, { db: '/f.db', agent: 'a' }];

  it('accepts only what the full check accepts, with the same result', () => {
    for (const vars of variations) {
      for (const flags of overrides) {
        const env = { HOME: '/home/u', ...vars };
        const full = configSchema.safeParse(rawConfig(env, flags));
        const quick = quickConfig(env, flags);
        if (quick !== undefined) expect([vars, flags, quick]).toEqual([vars, flags, full.data]);
        if (!full.success) expect([vars, flags, quick]).toEqual([vars, flags, undefined]);
      }
    }
  });

  it('needs no full check for the usual settings', () => {
    expect(quickConfig({ HOME: '/home/u' })).toEqual(loadConfig({ HOME: '/home/u' }));
    expect(
      quickConfig({ BRAIN_DB: '/x.db', OLLAMA_HOST: 'localhost:11434' }, { agent: 'nova' }),
    ).toBeDefined();
  });
});
