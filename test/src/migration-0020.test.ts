import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectionOf } from '../../src/brain.js';
import { registerIndexText } from '../../src/db/index-text.js';
import { loadMigrations } from '../../src/db/migrate.js';
import { APPLICATION_ID, openBrain } from '../../src/index.js';
import { wordEmbedder } from '../embedders.js';
import { fixedClock, tempDir } from '../helpers.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => cleanup());

const SPACE_AT = '2025-12-31T23:59:59.123Z';
const EMBEDDED_AT = '2026-01-01T00:00:00.456Z';
const ENQUEUED_AT = '2026-01-01T00:01:02.789Z';
const RETRY_AT = '2026-01-01T00:10:00.000Z';

/**
 * A brain as version 19 left it, with ISO times on its embedding tables: message 1 failed once
 * and waits to be retried, message 2 waits for its first try, message 3 has a vector.
 */
function versionNineteen(path: string): void {
  const old = new BetterSqlite3(path);
  sqliteVec.load(old);
  registerIndexText(old);
  for (const m of loadMigrations().slice(0, 19)) old.exec(m.sql);
  old.pragma(`application_id = ${APPLICATION_ID}`);
  old.pragma('user_version = 19');
  old.exec(`
    INSERT INTO agents (name) VALUES ('helios'), ('nova');
    INSERT INTO threads (uid, subject, created_by, created_at, last_message_at)
      VALUES (randomblob(16), 'notes', 1, 1000, 3000);
    INSERT INTO messages (uid, thread_id, from_agent, to_agent, body, created_at)
      VALUES (1, 1, 1, 2, 'first words', 1000), (2, 1, 1, 2, 'second words', 2000),
             (3, 1, 1, 2, 'third words', 3000);
    UPDATE embed_cursor SET last_id = 3 WHERE item_type = 'message';
    INSERT INTO embed_queue (item_type, item_id, enqueued_at, attempts, retry_at, last_error)
      VALUES ('message', 1, '${ENQUEUED_AT}', 1, '${RETRY_AT}', 'down'),
             ('message', 2, '${ENQUEUED_AT}', 0, NULL, NULL),
             ('stm', 9, 'not a time', 0, NULL, NULL);
    INSERT INTO embedding_space (id, model, dimension, created_at)
      VALUES (1, 'brain-test-words', 2, '${SPACE_AT}');
    INSERT INTO embeddings (id, item_type, item_id, model, dimension, content_hash, vector, embedded_at)
      VALUES (7, 'message', 3, 'brain-test-words', 2, 'abc', zeroblob(8), '${EMBEDDED_AT}');`);
  old.close();
}

describe('migration 0020: the embedding tables keep times as milliseconds', () => {
  it('turns every ISO time into the same instant in milliseconds, and reads it back as ISO', async () => {
    const path = join(dir, 'brain.db');
    versionNineteen(path);
    const brain = await openBrain({ dbPath: path });
    try {
      const db = connectionOf(brain);
      expect(
        db.prepare(`SELECT item_id, enqueued_at, retry_at FROM embed_queue ORDER BY id`).all(),
      ).toEqual([
        { item_id: 1, enqueued_at: Date.parse(ENQUEUED_AT), retry_at: Date.parse(RETRY_AT) },
        { item_id: 2, enqueued_at: Date.parse(ENQUEUED_AT), retry_at: null },
        // A text that is no time becomes the epoch.
        { item_id: 9, enqueued_at: 0, retry_at: null },
      ]);
      expect(db.prepare(`SELECT id, embedded_at FROM embeddings`).all()).toEqual([
        { id: 7, embedded_at: Date.parse(EMBEDDED_AT) },
      ]);
      expect(db.prepare(`SELECT created_at FROM embedding_space`).get()).toEqual({
        created_at: Date.parse(SPACE_AT),
      });
      expect(brain.embed.vectorSpace()).toEqual({
        model: 'brain-test-words',
        dimension: 2,
        created_at: SPACE_AT,
      });
      expect(brain.embed.embedStatus()).toMatchObject({ failed: 1, last_error: 'down' });
      // Text is refused now, as in every other table's times.
      expect(() =>
        db.prepare(`UPDATE embed_queue SET retry_at = '${RETRY_AT}' WHERE item_id = 2`).run(),
      ).toThrow(/CHECK/);
    } finally {
      brain.close();
    }
  });

  it('retries a failed item only once its converted retry time has come', async () => {
    const path = join(dir, 'brain.db');
    versionNineteen(path);
    const clock = fixedClock('2026-01-01T00:05:00.000Z');
    const brain = await openBrain({ dbPath: path, clock });
    try {
      const embedder = wordEmbedder(['words']);
      // Each text is the thread, the date line, then the body.
      const bodies = () => embedder.calls.flat().map((text) => text.split('\n')[2]);
      await brain.embed.embedQueued(embedder);
      expect(bodies()).toEqual(['second words', 'third words']);
      expect(brain.embed.embedStatus()).toMatchObject({ failed: 1 });
      clock.tick(6 * 60_000);
      await brain.embed.embedQueued(embedder);
      expect(bodies()).toEqual(['second words', 'third words', 'first words']);
      expect(brain.embed.embedStatus()).toMatchObject({ failed: 0, pending: 0 });
      expect(brain.embed.vectorSpace()?.created_at).toBe('2026-01-01T00:05:00.000Z');
    } finally {
      brain.close();
    }
  });

  it('queues a changed item again with an integer time', async () => {
    const brain = await openBrain({ dbPath: join(dir, 'new.db') });
    try {
      brain.messages.send({ from: 'helios', to: 'nova', body: 'before' });
      await brain.embed.embedQueued(wordEmbedder(['before']));
      const db = connectionOf(brain);
      const before = Date.now();
      db.prepare(`UPDATE messages SET body = 'after' WHERE id = 1`).run();
      const row = db.prepare(`SELECT enqueued_at FROM embed_queue`).get() as {
        enqueued_at: number;
      };
      expect(Number.isInteger(row.enqueued_at)).toBe(true);
      expect(row.enqueued_at).toBeGreaterThanOrEqual(before - 1000);
      expect(row.enqueued_at).toBeLessThanOrEqual(Date.now() + 1000);
    } finally {
      brain.close();
    }
  });
});
