import BetterSqlite3, { type Database } from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectionOf, type Brain } from '../../../src/brain.js';
import type { WordCountNotes } from '../../../src/context.js';
import { StatementCache } from '../../../src/db/open.js';
import { createRankCaches } from '../../../src/search/rank-caches.js';
import {
  KEEP_FROM_ROWS,
  createWordCountNotes,
  createWordCounter,
  flushWordCounts,
} from '../../../src/search/word-counts.js';
import { quoteTerm } from '../../../src/search/fts-query.js';
import type { SearchType } from '../../../src/validation.js';
import { tempBrain, type TempBrain } from '../../helpers.js';

let t: TempBrain;
beforeEach(async () => {
  t = await tempBrain();
});
afterEach(() => t.cleanup());

// Common enough to be kept (KEEP_FROM_ROWS), rare, and in between.
const COMMON = 'harbour';
const WORDS = [COMMON, 'lantern', 'quay', 'gull'];

/** n messages; every message holds COMMON, every 3rd 'lantern', every 7th 'quay'. */
function fill(brain: Brain, n: number, from = 0): void {
  brain.batch(() => {
    for (let i = from; i < from + n; i++) {
      const words = [COMMON, i % 3 === 0 ? 'lantern' : 'rope', i % 7 === 0 ? 'quay' : 'tide'];
      brain.messages.send({ from: 'atlas', to: 'nova', body: `${words.join(' ')} ${i}` });
    }
  });
}

/** A counter on its own connection, as a new process would have, with its notes. */
function counterOn(db: Database, type: SearchType = 'message') {
  const ctx = {
    db,
    q: new StatementCache(db),
    ranking: createRankCaches(),
    wordCounts: createWordCountNotes(),
  };
  return { ctx, counter: createWordCounter(ctx, type) };
}

/**
 * A brain's connection as another tool would use it: brain itself never deletes or edits indexed
 * rows, so such a tool leaves the rows that point at them alone.
 */
function rawConnection(brain: Brain): Database {
  const db = connectionOf(brain);
  db.pragma('foreign_keys = OFF');
  return db;
}

/** The count FTS5 itself gives, walking the posting list. */
function truth(db: Database, term: string): number {
  return db
    .prepare(`SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?`)
    .pluck()
    .get(quoteTerm(term)) as number;
}

function kept(db: Database, term: string): { n: number; upto: number } | undefined {
  return db
    .prepare(`SELECT n, upto FROM search_word_counts WHERE idx = 'message' AND term = ?`)
    .get(term) as { n: number; upto: number } | undefined;
}

describe("words' row counts kept in the brain", () => {
  it('are noted by a search, written on close, and used by the next process', async () => {
    fill(t.brain, KEEP_FROM_ROWS + 200);
    const reader = await t.reopen();
    reader.search.search({ query: `${COMMON} lantern` });
    const db = connectionOf(t.brain);
    expect(kept(db, COMMON)).toBeUndefined(); // a read writes nothing itself
    reader.close();
    expect(kept(db, COMMON)).toEqual({ n: KEEP_FROM_ROWS + 200, upto: expect.any(Number) });
    // Rare words are counted afresh each time: not worth a row.
    expect(kept(db, 'quay')).toBeUndefined();

    // The next process starts from the kept count: make it visibly wrong to see it used.
    db.prepare(`UPDATE search_word_counts SET n = n + 5 WHERE term = ?`).run(COMMON);
    const { counter } = counterOn(new BetterSqlite3(t.path));
    expect(counter.count(COMMON)).toBe(KEEP_FROM_ROWS + 205);
  });

  it('stay exact through appends, edits, deletes and inserts below the newest row by other connections', async () => {
    fill(t.brain, KEEP_FROM_ROWS + 100);
    const other = rawConnection(await t.reopen());
    const steps: Array<[string, () => void]> = [
      ['append', () => fill(t.brain, 300, 5000)],
      ['edit', () => other.prepare(`UPDATE messages SET body = 'gull only' WHERE id = 10`).run()],
      ['delete', () => other.prepare(`DELETE FROM messages WHERE id IN (20, 21, 22)`).run()],
      ['append again', () => fill(t.brain, 50, 9000)],
    ];
    for (const [name, step] of steps) {
      // Count, keep and write, as a search and its close would.
      const before = counterOn(new BetterSqlite3(t.path));
      for (const w of WORDS) before.counter.count(w);
      expect(flushWordCounts(before.ctx), name).toBe(true);
      step();
      const after = counterOn(new BetterSqlite3(t.path));
      const want = WORDS.map((w) => truth(other, w));
      expect(
        WORDS.map((w) => after.counter.count(w)),
        name,
      ).toEqual(want);
      // The connection that counted before the change, reused: its memory follows too.
      expect(
        WORDS.map((w) => createWordCounter(before.ctx, 'message').count(w)),
        name,
      ).toEqual(want);
    }
  });

  it('are dropped when an insert lands below the newest row, as an import with ids may do', () => {
    fill(t.brain, KEEP_FROM_ROWS + 10);
    const db = rawConnection(t.brain);
    const row = db.prepare(`SELECT * FROM messages WHERE id = 3`).get();
    db.prepare(`DELETE FROM messages WHERE id = 3`).run(); // a gap below the newest row
    const { ctx, counter } = counterOn(new BetterSqlite3(t.path));
    counter.count(COMMON);
    flushWordCounts(ctx);
    expect(kept(db, COMMON)).toBeDefined();
    db.prepare(
      `INSERT INTO messages (id, uid, thread_id, from_agent, to_agent, body, created_at)
       VALUES (@id, @uid, @thread_id, @from_agent, @to_agent, @body, @created_at)`,
    ).run(row);
    expect(kept(db, COMMON)).toBeUndefined();
    const { counter: fresh } = counterOn(new BetterSqlite3(t.path));
    expect(fresh.count(COMMON)).toBe(truth(db, COMMON));
  });

  it('are not written when the index changed between counting and writing', () => {
    fill(t.brain, KEEP_FROM_ROWS + 10);
    const { ctx, counter } = counterOn(new BetterSqlite3(t.path));
    counter.count(COMMON); // noted at this epoch
    t.brain.messages.send({ from: 'atlas', to: 'nova', body: 'harbour appended' }); // harmless
    rawConnection(t.brain).prepare(`DELETE FROM messages WHERE id = 7`).run(); // a new epoch
    expect(flushWordCounts(ctx)).toBe(true);
    expect(kept(connectionOf(t.brain), COMMON)).toBeUndefined();
  });

  it('wait for a later flush, and the search still answers, while another connection holds the write lock', async () => {
    fill(t.brain, KEEP_FROM_ROWS + 10);
    const holder = new BetterSqlite3(t.path);
    holder.exec('BEGIN IMMEDIATE');
    const reader = await t.reopen();
    expect(reader.search.search({ query: COMMON }).hits.length).toBeGreaterThan(0);
    expect(reader.upkeep.flushNoted()).toBe(false); // not written, still noted
    holder.exec('COMMIT');
    holder.close();
    expect(reader.upkeep.flushNoted()).toBe(true);
    expect(kept(connectionOf(t.brain), COMMON)?.n).toBe(KEEP_FROM_ROWS + 10);
  });

  it('keep nothing from inside a write transaction, whose rows may be rolled back', () => {
    fill(t.brain, KEEP_FROM_ROWS + 10);
    const db = connectionOf(t.brain);
    const notes: WordCountNotes = createWordCountNotes();
    const ctx = { db, q: new StatementCache(db), ranking: createRankCaches(), wordCounts: notes };
    const rollback = new Error('roll back');
    expect(() =>
      t.brain.batch(() => {
        fill(t.brain, 40, 7000);
        expect(createWordCounter(ctx, 'message').count(COMMON)).toBe(KEEP_FROM_ROWS + 50);
        throw rollback;
      }),
    ).toThrow(rollback);
    expect(notes.size).toBe(0);
    expect(createWordCounter(ctx, 'message').count(COMMON)).toBe(KEEP_FROM_ROWS + 10);
  });

  it('are read but never written by a read-only connection', async () => {
    fill(t.brain, KEEP_FROM_ROWS + 10);
    const readonly = await t.reopen({ readonly: true });
    expect(readonly.search.search({ query: COMMON }).hits.length).toBeGreaterThan(0);
    expect(readonly.upkeep.flushNoted()).toBe(true);
    expect(kept(connectionOf(t.brain), COMMON)).toBeUndefined();
  });
});

describe('counts kept in memory', () => {
  it('live on the context that counted them, not with the connection', () => {
    fill(t.brain, KEEP_FROM_ROWS + 10);
    const db = connectionOf(t.brain);
    const one = counterOn(db);
    const other = counterOn(db);
    const n = one.counter.count(COMMON);
    expect(one.ctx.ranking.counts.message.get(COMMON)?.n).toBe(n);
    expect(other.ctx.ranking.counts.message.has(COMMON)).toBe(false);
    expect(other.counter.count(COMMON)).toBe(n);
  });
});
