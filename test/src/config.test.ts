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

describe('the settings loadConfig refuses', () => {
  it('names each one that is not plainly a setting, as read from the environment', () => {
    const refused: Array<[Record<string, string>, RegExp]> = [
      [{ BRAIN_AGENT: 'x'.repeat(65) }, /--agent \/ BRAIN_AGENT: must be at most 64 characters/],
      [{ BRAIN_EMBEDDER: 'AUTO' }, /BRAIN_EMBEDDER: must be one of ollama, offline, none, auto/],
      [{ OLLAMA_HOST: 'http://a b' }, /OLLAMA_HOST: must be a URL such as/],
      [{ OLLAMA_HOST: 'http://exa\tmple.com' }, /OLLAMA_HOST: must be a URL such as/],
      [{ OLLAMA_HOST: 'http://x:99999' }, /OLLAMA_HOST: must be a URL such as/],
      [{ BRAIN_LOG_LEVEL: 'verbose' }, /BRAIN_LOG_LEVEL: must be one of error, warn, info, debug/],
      [{ BRAIN_DURABILITY: 'FULL' }, /BRAIN_DURABILITY: must be one of normal, full/],
      [
        { BRAIN_EXTRACT_THREADS: 'some' },
        /BRAIN_EXTRACT_THREADS: must be one of all, tagged, none/,
      ],
    ];
    for (const bytes of ['0', '-1', '1.5', ' 12 ', '1e3', '0x10', 'Infinity', 'lots'])
      refused.push([
        { BRAIN_MAX_BODY_BYTES: bytes },
        /^configuration: BRAIN_MAX_BODY_BYTES: must be a whole number of at least 1$/,
      ]);
    refused.push([
      { BRAIN_ATTACHMENT_TEXT_TIMEOUT_MS: '0' },
      /^configuration: BRAIN_ATTACHMENT_TEXT_TIMEOUT_MS: must be a whole number of at least 1$/,
    ]);
    for (const [env, words] of refused)
      expect(() => loadConfig({ HOME: '/home/u', ...env }), JSON.stringify(env)).toThrow(words);
    expect(() => loadConfig({}, { db: '', agent: '' })).toThrow(
      /^configuration: --db \/ BRAIN_DB: must not be empty; --agent \/ BRAIN_AGENT: must not be empty/,
    );
  });

  it('takes the usual settings as they are', () => {
    expect(
      loadConfig({
        HOME: '/home/u',
        BRAIN_EMBEDDER: 'none',
        OLLAMA_HOST: 'http://[::1]:11434',
        BRAIN_MAX_BODY_BYTES: '2048',
        BRAIN_LOG_LEVEL: 'debug',
        BRAIN_DURABILITY: 'full',
        BRAIN_EXTRACT_THREADS: 'tagged',
        BRAIN_ATTACHMENT_TEXT_TIMEOUT_MS: '5000',
      }),
    ).toEqual({
      dbPath: '/home/u/.local/share/brain/brain.db',
      embedder: 'none',
      ollamaHost: 'http://[::1]:11434',
      embedModel: 'nomic-embed-text',
      maxBodyBytes: 2048,
      maxAttachmentBytes: 10 * 1024 * 1024,
      maxAttachmentsTotalBytes: 1024 * 1024 * 1024,
      attachmentTextTimeoutMs: 5000,
      attachRoots: [],
      logLevel: 'debug',
      durability: 'full',
      extractThreads: 'tagged',
    });
  });
});
