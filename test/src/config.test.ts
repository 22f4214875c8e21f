import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/index.js';

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
