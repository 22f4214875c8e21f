import BetterSqlite3, { type Database } from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectionOf, type Brain } from '../../../src/brain.js';
import { StatementCache } from '../../../src/db/open.js';
import { createRankCaches } from '../../../src/search/rank-caches.js';
import {
  CENSUS,
  KEEP_FROM_ROWS,
  createWordCountNotes,
  createWordCounter,
  takeCensus,
} from '../../../src/search/word-counts.js';
import { IMPACTS_MIN } from '../../../src/search/impacts.js';
import { tempBrain, type TempBrain } from '../../helpers.js';

let t: TempBrain;
beforeEach(async () => {
  t = await tempBrain();
});
afterEach(() => t.cleanup());

/** n messages, each holding "lanterns" or "lantern" (one token) and every 4th "quay". */
function fill(brain: Brain, n: number, from = 0): void {
  brain.batch(() => {
    for (let i = from; i < from + n; i++) {
      const lantern = i % 2 === 0 ? 'lanterns' : 'lantern';
      brain.messages.send({
        from: 'atlas',
        to: 'nova',
        body: `${lantern} ${i % 4 === 0 ? 'quay' : 'tide'}`,
      });
    }
  });
}

function census(db: Database): Map<string, { n: number; upto: number }> {
  const rows = db
    .prepare(
      `SELECT term, n, upto FROM search_word_counts WHERE idx = 'message' AND term LIKE '=%'`,
    )
    .all() as Array<{ term: string; n: number; upto: number }>;
  return new Map(rows.map((r) => [r.term, { n: r.n, upto: r.upto }]));
}

/** A counter on its own connection, as a new process would have. */
function counterOn(db: Database) {
  return createWordCounter(
    {
      db,
      q: new StatementCache(db),
      ranking: createRankCaches(),
      wordCounts: createWordCountNotes(),
    },
    'message',
  );
}

describe("the census of an index's words", () => {
  it('keeps the row count of every token held by enough rows, once per epoch, when a long-running process warms up', () => {
    fill(t.brain, KEEP_FROM_ROWS + 100);
    const db = connectionOf(t.brain);
    expect(census(db).size).toBe(0);
    t.brain.search.warmSearch();
    const top = db.prepare(`SELECT max(id) FROM messages`).pluck().get() as number;
    const kept = census(db);
    // Both forms of the word under their one token; "quay" (a quarter of the rows) is too rare.
    expect(kept.get(`${CENSUS}lantern`)).toEqual({ n: KEEP_FROM_ROWS + 100, upto: top });
    expect(kept.has(`${CENSUS}quay`)).toBe(false);
    expect(kept.get(CENSUS)).toEqual({ n: kept.size - 1, upto: top });
    // Taken already in this epoch: nothing is read or written again.
    db.prepare(`UPDATE search_word_counts SET n = 1 WHERE term = ?`).run(`${CENSUS}lantern`);
    t.brain.search.warmSearch();
    expect(census(db).get(`${CENSUS}lantern`)!.n).toBe(1);
  });

  it('gives a word never counted its count from its token, with the rows added since', async () => {
    fill(t.brain, KEEP_FROM_ROWS + 100);
    t.brain.search.warmSearch();
    const db = connectionOf(t.brain);
    // Make the census visibly wrong to see it used, then add rows after it.
    db.prepare(`UPDATE search_word_counts SET n = n + 7 WHERE term = ?`).run(`${CENSUS}lantern`);
    fill(t.brain, 30, 5000);
    const counter = counterOn(connectionOf(await t.reopen()));
    expect(counter.count('lanterns')).toBe(KEEP_FROM_ROWS + 100 + 7 + 30);
    expect(counter.count('lantern')).toBe(KEEP_FROM_ROWS + 100 + 7 + 30);
    // A word the census does not hold is counted from its rows.
    expect(counter.count('quay')).toBe(Math.ceil((KEEP_FROM_ROWS + 100) / 4) + 8);
  });

  it('is dropped with the other counts when an edit moves the index to another epoch, and taken again', async () => {
    fill(t.brain, KEEP_FROM_ROWS + 100);
    t.brain.search.warmSearch();
    const db = connectionOf(t.brain);
    db.prepare(`UPDATE messages SET body = 'tide' WHERE id = 5`).run();
    expect(census(db).size).toBe(0);
    const exact = db
      .prepare(`SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'lantern'`)
      .pluck()
      .get() as number;
    expect(counterOn(connectionOf(await t.reopen())).count('lanterns')).toBe(exact);
    t.brain.search.warmSearch();
    expect(census(db).get(`${CENSUS}lantern`)!.n).toBe(exact);
  });

  it("reads the commonest tokens' score classes too, which a word's search then uses instead of reading its own", async () => {
    // Held by more than IMPACTS_MIN rows: read by classes at this size.
    fill(t.brain, IMPACTS_MIN + 100);
    t.brain.search.warmSearch();
    const db = connectionOf(t.brain);
    const classes = (term: string) =>
      db
        .prepare(`SELECT impacts FROM search_word_counts WHERE idx = 'message' AND term = ?`)
        .pluck()
        .get(term) as Buffer | null | undefined;
    expect(classes('lantern')).toBeInstanceOf(Buffer);
    expect(classes('quay')).toBeUndefined();
    // "lanterns" was never searched: its search reads no classes of its own (none noted to keep).
    const reader = await t.reopen();
    const hits = reader.search.search({ query: 'lanterns', types: ['message'], limit: 5 }).hits;
    expect(hits).toHaveLength(5);
    reader.close();
    expect(classes('lanterns') ?? null).toBeNull();
  });

  it('writes nothing from a read-only connection', () => {
    fill(t.brain, KEEP_FROM_ROWS + 100);
    const db = new BetterSqlite3(t.path, { readonly: true });
    expect(
      takeCensus({ db, q: new StatementCache(db), ranking: createRankCaches() }, 'message'),
    ).toBeUndefined();
    expect(census(connectionOf(t.brain)).size).toBe(0);
  });
});
