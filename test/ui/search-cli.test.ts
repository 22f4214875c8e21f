import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startFakeOllama } from '../fakes/ollama.js';
import { runCli, tempDir } from '../helpers.js';
import { spawnUi } from './browser.js';

const tmp = tempDir('brain-ui-search-');
afterAll(() => tmp.cleanup());

describe('brain ui search (the command, with an embedder)', () => {
  it('searches by words and meaning as brain search does, and by words with a notice once Ollama fails', async () => {
    const fake = await startFakeOllama();
    const env = { BRAIN_EMBEDDER: 'ollama', OLLAMA_HOST: fake.host };
    const db = join(tmp.dir, 'brain.db');
    const ui = await (async () => {
      const sent = await runCli(
        [
          '--db',
          db,
          '--agent',
          'nova',
          'send',
          '--to',
          'helios',
          '--body',
          'the disk on db-2 is full',
        ],
        env,
      );
      expect(sent.code, sent.stderr).toBe(0);
      const embedded = await runCli(['--db', db, 'embed'], env);
      expect(embedded.code, embedded.stderr).toBe(0);
      return spawnUi(db, [], env);
    })();
    try {
      const page = async () => (await fetch(`${ui.url}/search?q=disk`)).text();
      const hybrid = await page();
      expect(hybrid).toMatch(/retrievers: fts, vector/);
      expect(hybrid).toContain('<span class="badge retriever">vector #1</span>');
      expect(fake.requests.at(-1)?.input).toEqual(['search_query: disk']);

      fake.mode = 'http500';
      const words = await page();
      expect(words).toMatch(/retrievers: fts\s*</);
      expect(words).toContain('<p class="notice">');
      expect(words).toContain('<span class="badge retriever">fts #1</span>');
    } finally {
      await ui.stop();
      await fake.close();
    }
  });
});
