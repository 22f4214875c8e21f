import type { Database } from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectionOf, type Brain } from '../../../src/brain.js';
import type { WordCountNotes } from '../../../src/context.js';
import { StatementCache } from '../../../src/db/open.js';
import { createRankCaches, type RankCaches } from '../../../src/search/rank-caches.js';
import type { Ranked } from '../../../src/search/bm25-top-k.js';
import { RANK_SQL } from '../../../src/search/rank.js';
import { quoteTerm } from '../../../src/search/fts-query.js';
import {
  IMPACTS_FROM,
  IMPACTS_REREAD_AFTER,
  impactsBound,
  impactsTopK,
} from '../../../src/search/impacts.js';
import {
  createWordCounter,
  createWordCountNotes,
  flushWordCounts,
} from '../../../src/search/word-counts.js';
import { tempBrain, type TempBrain } from '../../helpers.js';

let t: TempBrain;
beforeEach(async () => {
  t = await tempBrain();
});
afterEach(() => t.cleanup());

const WORD = 'harbour';
const WEIGHTS = '2.0, 1.0, 1.0, 0.5';

/**
 * n messages holding WORD once, twice or three times (some in the subject, which weighs double),
 * among 0 to 12 other words: a few dozen (f, D) classes, most of them shared by many rows, so the
 * top k ends inside a class of ties.
 */
function fill(brain: Brain, n: number, from = 0): void {
  brain.batch(() => {
    for (let i = from; i < from + n; i++) {
      const times = 1 + (i % 3 === 0 ? 1 : 0) + (i % 17 === 0 ? 1 : 0);
      const body = `${Array(times).fill(WORD).join(' ')}${' rope'.repeat(i % 13)}`;
      brain.messages.send({
        from: 'atlas',
        to: 'nova',
        body,
        ...(i % 29 === 0 && { subject: WORD }),
      });
    }
  });
}

interface On {
  ctx: { db: Database; q: StatementCache; wordCounts: WordCountNotes; ranking: RankCaches };
  /** What the bare rank statement gives: every row scored. */
  exhaustive(k: number): Ranked[];
  /** What the classes give, with the thresholds lowered to these few rows. */
  fromClasses(k: number, keep?: number): Ranked[] | undefined;
  /** The word's bound from its classes. */
  bound(): number | undefined;
}

function on(db: Database): On {
  const ctx = {
    db,
    q: new StatementCache(db),
    ranking: createRankCaches(),
    wordCounts: createWordCountNotes(),
  };
  const counter = () => createWordCounter(ctx, 'message');
  /** The word's count and the index's figures, as a search reads them. */
  const word = () => {
    const c = counter();
    const df = c.count(WORD);
    const stats = { ...c.totals(), epoch: c.epoch() };
    return { df, index: { ctx, type: 'message' as const, weights: WEIGHTS, stats } };
  };
  return {
    ctx,
    exhaustive(k) {
      const df = counter().count(WORD);
      return db.prepare(RANK_SQL.brain_bm25.message.bare).all({
        match: quoteTerm(WORD),
        k,
        df: Buffer.from(Float64Array.from([df]).buffer),
      }) as Ranked[];
    },
    fromClasses(k, keep) {
      const { index, df } = word();
      return impactsTopK(index, WORD, df, k, { from: 1, ...(keep !== undefined && { keep }) });
    },
    bound() {
      const { index, df } = word();
      return impactsBound(index, WORD, df, { from: 1 });
    },
  };
}

/** The same rows in the same order, scores equal to the last bits that matter. */
function expectSame(got: Ranked[] | undefined, want: Ranked[]): void {
  expect(got).toBeDefined();
  expect(got!.map((r) => r.rowid)).toEqual(want.map((r) => r.rowid));
  got!.forEach((r, i) => expect(r.bm25).toBeCloseTo(want[i]!.bm25, 12));
}

describe("a common word's top k from its classes", () => {
  it('is the top k of scoring every row, ties to the older row, for every k up to what is kept', () => {
    fill(t.brain, 900);
    const o = on(connectionOf(t.brain));
    for (const k of [1, 2, 10, 37, 100, 200, 256]) expectSame(o.fromClasses(k), o.exhaustive(k));
    // Past what each class keeps, the rows are scored one by one.
    expect(o.fromClasses(257)).toBeUndefined();
  });

  it('stays exact as rows are added, whatever they do to the mean length, and reads the word again when many were', () => {
    fill(t.brain, 600);
    const o = on(connectionOf(t.brain));
    expectSame(o.fromClasses(50), o.exhaustive(50));
    // Newer rows that score best (short), then long rows without the word: the mean length
    // triples, which reorders classes of different lengths and hit counts.
    t.brain.batch(() => {
      for (let i = 0; i < 30; i++) t.brain.messages.send({ from: 'atlas', to: 'nova', body: WORD });
      for (let i = 0; i < 300; i++)
        t.brain.messages.send({ from: 'atlas', to: 'nova', body: 'rope '.repeat(40) + i });
    });
    expectSame(o.fromClasses(50), o.exhaustive(50));
    expectSame(o.fromClasses(200), o.exhaustive(200));
    // More new rows than are scored one by one: the word is read again.
    fill(t.brain, IMPACTS_REREAD_AFTER + 10, 600);
    expectSame(o.fromClasses(100), o.exhaustive(100));
  });

  it('reads the classes again when the ones it now needs kept too few rows', () => {
    // 500 rows of the word alone, 30 holding it three times among 40 words: the first score
    // best while the mean length is short, the second once long rows have made it long.
    t.brain.batch(() => {
      for (let i = 0; i < 500; i++)
        t.brain.messages.send({ from: 'atlas', to: 'nova', body: WORD });
      for (let i = 0; i < 30; i++)
        t.brain.messages.send({
          from: 'atlas',
          to: 'nova',
          body: `${WORD} ${WORD} ${WORD}${' rope'.repeat(37)}`,
        });
    });
    const o = on(connectionOf(t.brain));
    // Each class keeps at most 20 rows, and only the best classes (4 × 20 rows) keep any: the
    // 30 rows keep none.
    const before = o.exhaustive(20);
    expectSame(o.fromClasses(20, 20), before);
    t.brain.batch(() => {
      for (let i = 0; i < 300; i++)
        t.brain.messages.send({ from: 'atlas', to: 'nova', body: 'rope '.repeat(200) + i });
    });
    const after = o.exhaustive(20);
    expect(after.map((r) => r.rowid)).not.toEqual(before.map((r) => r.rowid));
    expectSame(o.fromClasses(20, 20), after);
  });

  it("bounds the word's score by what its best row scores, rows added since included", () => {
    fill(t.brain, 400);
    t.brain.batch(() => {
      for (let i = 0; i < 600; i++)
        t.brain.messages.send({ from: 'atlas', to: 'nova', body: `rope ${i}` });
    });
    const o = on(connectionOf(t.brain));
    const best = () => -o.exhaustive(1)[0]!.bm25;
    expect(o.bound()).toBeCloseTo(best(), 12);
    // A newer row scores above every class: the bound follows it.
    t.brain.messages.send({ from: 'atlas', to: 'nova', subject: WORD, body: `${WORD} `.repeat(5) });
    expect(best()).toBeGreaterThan(-o.exhaustive(2)[1]!.bm25);
    expect(o.bound()).toBeCloseTo(best(), 12);
  });

  it('never gives a row deleted or edited since, by this connection or another', async () => {
    fill(t.brain, 600);
    const mine = on(connectionOf(t.brain));
    const best = mine.exhaustive(5);
    expectSame(mine.fromClasses(5), best);
    const other = await t.reopen();
    const raw = connectionOf(other);
    raw.pragma('foreign_keys = OFF');
    raw.prepare('DELETE FROM messages WHERE id = ?').run(best[0]!.rowid);
    raw.prepare(`UPDATE messages SET body = 'rope' WHERE id = ?`).run(best[1]!.rowid);
    const now = mine.fromClasses(5);
    expect(now!.map((r) => r.rowid)).not.toContain(best[0]!.rowid);
    expect(now!.map((r) => r.rowid)).not.toContain(best[1]!.rowid);
    expectSame(now, mine.exhaustive(5));
  });

  it('keeps nothing read inside a write transaction, whose rows may yet be rolled back', () => {
    fill(t.brain, 300);
    const db = connectionOf(t.brain);
    const o = on(db);
    db.transaction(() => {
      fill(t.brain, 20, 300);
      expect(o.fromClasses(10)).toBeUndefined();
    })();
    expectSame(o.fromClasses(10), o.exhaustive(10));
  });
});

describe("a common word's classes kept in the brain", () => {
  const stored = (db: Database) =>
    db
      .prepare(`SELECT impacts FROM search_word_counts WHERE idx = 'message' AND term = ?`)
      .pluck()
      .get(WORD) as Buffer | null | undefined;

  it('are written with the counts, and a new connection starts from them', async () => {
    fill(t.brain, 700);
    const first = on(connectionOf(t.brain));
    const want = first.exhaustive(30);
    expectSame(first.fromClasses(30), want);
    expect(stored(first.ctx.db) ?? null).toBeNull(); // noted, not yet written
    expect(flushWordCounts(first.ctx)).toBe(true);
    const blob = stored(first.ctx.db);
    expect(blob).toBeInstanceOf(Buffer);

    // Another process: the same top k, from what the brain keeps, rows added since included.
    const other = on(connectionOf(await t.reopen()));
    t.brain.messages.send({ from: 'atlas', to: 'nova', body: WORD });
    expectSame(other.fromClasses(30), other.exhaustive(30));

    // What it starts from is what the brain keeps: classes that say one row holds the word, and
    // no row was added since, give that row alone.
    const [only] = other.exhaustive(1);
    const one = Float64Array.from([1, only!.rowid, 1, 1, 1, 1, 1, only!.rowid]);
    const third = on(connectionOf(await t.reopen()));
    third.ctx.db
      .prepare(`UPDATE search_word_counts SET impacts = ? WHERE idx = 'message' AND term = ?`)
      .run(Buffer.from(one.buffer), WORD);
    // Its count no longer adds up with the classes' (1 row, not 701): it reads the rows instead.
    expect(third.fromClasses(30)).toBeUndefined();
  });

  it('go with the counts when the index changes below its newest row', async () => {
    fill(t.brain, 700);
    const o = on(connectionOf(t.brain));
    o.fromClasses(10);
    flushWordCounts(o.ctx);
    expect(stored(o.ctx.db)).toBeInstanceOf(Buffer);
    const raw = connectionOf(await t.reopen());
    raw.pragma('foreign_keys = OFF');
    raw.prepare('DELETE FROM messages WHERE id = ?').run(o.exhaustive(1)[0]!.rowid);
    expect(stored(o.ctx.db)).toBeUndefined();
    expectSame(o.fromClasses(10), o.exhaustive(10));
  });
});

describe('search of a word held by more rows than IMPACTS_FROM', () => {
  it('finds the hits bm25() finds, in its order, before and after more rows come', async () => {
    // One message through the library, the rest copied from it by SQL: filling 10,000 rows
    // one send at a time would cost this test seconds.
    t.brain.messages.send({ from: 'atlas', to: 'nova', body: `${WORD} rope` });
    const db = connectionOf(t.brain);
    const copy = (n: number) =>
      db
        .prepare(
          `WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < ?)
           INSERT INTO messages (uid, thread_id, from_agent, to_agent, subject, body, created_at)
           SELECT m.uid + (SELECT max(id) FROM messages) + i.n, m.thread_id, m.from_agent, m.to_agent,
             CASE WHEN i.n % 31 = 0 THEN '${WORD}' END,
             '${WORD}' || CASE WHEN i.n % 3 = 0 THEN ' ${WORD}' ELSE '' END ||
               substr(' rope rope rope rope rope rope rope rope rope', 1, 5 * (i.n % 9)) || ' ' || i.n,
             m.created_at + i.n
           FROM i, messages m WHERE m.id = (SELECT min(id) FROM messages)`,
        )
        .run(n);
    copy(IMPACTS_FROM + 200);
    const other = await t.reopen({ rankFunction: false });
    const hits = (b: Brain) =>
      b.search
        .search({ query: WORD, types: ['message'], limit: 50 })
        .hits.map((h) => [h.id, h.score]);
    const compare = () => {
      const mine = hits(t.brain);
      const theirs = hits(other);
      expect(mine.map((h) => h[0])).toEqual(theirs.map((h) => h[0]));
      mine.forEach((h, i) => expect(h[1]).toBeCloseTo(theirs[i]![1] as number, 9));
    };
    compare();
    t.brain.batch(() => {
      for (let i = 0; i < 40; i++) t.brain.messages.send({ from: 'atlas', to: 'nova', body: WORD });
    });
    compare();
  });
});
