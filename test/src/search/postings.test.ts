import type { Database } from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectionOf, type Brain } from '../../../src/brain.js';
import { StatementCache } from '../../../src/db/open.js';
import { createRankCaches } from '../../../src/search/rank-caches.js';
import type { Ranked } from '../../../src/search/bm25-top-k.js';
import { indexWeights, RANK_SQL } from '../../../src/search/rank.js';
import { quoteTerm } from '../../../src/search/fts-query.js';
import { keepPostings, postingsTopK, type PostingsRanked } from '../../../src/search/postings.js';
import { createWordCountNotes, createWordCounter } from '../../../src/search/word-counts.js';
import { mulberry32 } from '../../../bench/crash.js';
import { tempBrain, type TempBrain } from '../../helpers.js';

let t: TempBrain;
beforeEach(async () => {
  t = await tempBrain();
});
afterEach(() => t.cleanup());

// Word i is drawn about 1/(i+1) as often as the first: a few common words, many rare ones.
const VOCAB =
  'harbour rope lantern tide gull anchor keel mast sail deck hull oar cove pier buoy reef'.split(
    ' ',
  );

function fill(brain: Brain, n: number, seed: number, longer = 0): void {
  const random = mulberry32(seed);
  const word = () => VOCAB[Math.floor(VOCAB.length * random() ** 2.5)]!;
  brain.batch(() => {
    for (let i = 0; i < n; i++) {
      const length = 1 + Math.floor(random() * (12 + longer));
      const body = Array.from({ length }, word).join(' ');
      brain.messages.send({
        from: 'atlas',
        to: 'nova',
        body,
        ...(random() < 0.1 && { subject: word() }),
      });
    }
  });
}

interface On {
  /** Every row holding the words scored by the rank statement, best first. */
  exhaustive(terms: string[], all: boolean, k: number): Ranked[];
  fromPostings(
    terms: string[],
    all: boolean,
    k: number,
    options?: {
      excluded?: number[];
      included?: number[];
      own?: boolean;
      budget?: number;
      reads?: number;
    },
  ): Ranked[] | undefined;
  both(terms: string[], k: number, wide: number): PostingsRanked | undefined;
}

function on(db: Database): On {
  const ctx = {
    db,
    q: new StatementCache(db),
    ranking: createRankCaches(),
    wordCounts: createWordCountNotes(),
  };
  const counts = (terms: string[]) => {
    const counter = createWordCounter(ctx, 'message');
    return { dfs: terms.map((w) => counter.count(w)), epoch: counter.epoch() };
  };
  return {
    exhaustive(terms, all, k) {
      const { dfs } = counts(terms);
      return db.prepare(RANK_SQL.brain_bm25.message.bare).all({
        match: terms.map(quoteTerm).join(all ? ' ' : ' OR '),
        k,
        df: Buffer.from(Float64Array.from(dfs).buffer),
      }) as Ranked[];
    },
    fromPostings(terms, all, k, { excluded, included, own, budget, reads } = {}) {
      const { dfs, epoch } = counts(terms);
      const ranked = postingsTopK(ctx, {
        table: 'messages_fts',
        weights: indexWeights('message'),
        terms,
        counts: () => dfs,
        k: all ? k : 0,
        wide: all ? 0 : k,
        epoch,
        ...(excluded && { excluded: Buffer.from(Float64Array.from(excluded).buffer) }),
        ...(included && { included: Buffer.from(Float64Array.from(included).buffer) }),
        ...(own !== undefined && { own }),
        ...(budget !== undefined && { budget }),
        ...(reads !== undefined && { reads }),
      });
      return ranked && (all ? ranked.every : ranked.any);
    },
    both(terms, k, wide) {
      const { dfs, epoch } = counts(terms);
      const weights = indexWeights('message');
      return postingsTopK(ctx, {
        table: 'messages_fts',
        weights,
        terms,
        counts: () => dfs,
        k,
        wide,
        epoch,
      });
    },
  };
}

/** The same rows in the same order with the very same scores: the sums are computed alike. */
function expectSame(got: Ranked[] | undefined, want: Ranked[]): void {
  expect(got).toBeDefined();
  expect(got!.map((r) => r.rowid)).toEqual(want.map((r) => r.rowid));
  expect(got!.map((r) => r.bm25)).toEqual(want.map((r) => r.bm25));
}

function queries(seed: number, n: number): string[][] {
  const random = mulberry32(seed);
  return Array.from({ length: n }, () => {
    const size = 2 + Math.floor(random() * 4);
    return [...new Set(Array.from({ length: size }, () => VOCAB[Math.floor(random() * 16)]!))];
  });
}

describe('the top k from posting lists in memory', () => {
  it('ranks a few rows as an index of their own when asked: what an index of those rows alone gives, scores equal to the bit', () => {
    fill(t.brain, 1500, 5);
    const db = connectionOf(t.brain);
    const o = on(db);
    const random = mulberry32(6);
    const ids = db.prepare(`SELECT id FROM messages ORDER BY id`).pluck().all() as number[];
    const included = ids.filter(() => random() < 0.15);
    // The same rows' indexed text in an index of their own, scored by the same function.
    db.exec(`CREATE VIRTUAL TABLE temp.own_fts USING fts5(subject, body, sender, date,
      tokenize = 'porter unicode61 remove_diacritics 2')`);
    db.prepare(
      `INSERT INTO temp.own_fts (rowid, subject, body, sender, date)
       SELECT id, subject, body, sender, date FROM messages_index
       WHERE id IN (SELECT value FROM json_each(?))`,
    ).run(JSON.stringify(included));
    const alone = (terms: string[], all: boolean, k: number) =>
      db
        .prepare(
          `SELECT rowid, brain_bm25(own_fts, NULL, 'own_fts_docsize', ${indexWeights('message')}) AS bm25
           FROM temp.own_fts WHERE own_fts MATCH ? ORDER BY bm25, rowid LIMIT ?`,
        )
        .all(terms.map(quoteTerm).join(all ? ' ' : ' OR '), k) as Ranked[];
    let ranked = 0;
    for (const terms of queries(7, 20)) {
      for (const k of [1, 10, 100]) {
        for (const all of [false, true]) {
          const want = alone(terms, all, k);
          expectSame(o.fromPostings(terms, all, k, { included, own: true }), want);
          ranked += want.length;
        }
        // Without `own`, the whole index's counts and mean length weigh the same rows otherwise.
        const whole = o.fromPostings(terms, false, k, { included });
        if (k === 100)
          expect(whole!.map((r) => r.bm25)).not.toEqual(alone(terms, false, k).map((r) => r.bm25));
      }
    }
    expect(ranked).toBeGreaterThan(1000);
  });

  it('is the rank statement’s top k, rows holding any word or every word, scores equal to the bit', () => {
    fill(t.brain, 1500, 1);
    const o = on(connectionOf(t.brain));
    for (const terms of queries(2, 24)) {
      for (const k of [1, 7, 60, 2000]) {
        expectSame(o.fromPostings(terms, false, k), o.exhaustive(terms, false, k));
        expectSame(o.fromPostings(terms, true, k), o.exhaustive(terms, true, k));
      }
    }
  });

  it('ranks the rows holding any word in the same pass only when fewer than k hold every word', () => {
    fill(t.brain, 1200, 15);
    const o = on(connectionOf(t.brain));
    for (const terms of queries(16, 16)) {
      const every = o.exhaustive(terms, true, 10_000).length;
      for (const k of [1, 5, 40]) {
        const got = o.both(terms, k, 3 * k)!;
        expectSame(got.every, o.exhaustive(terms, true, k));
        expectSame(got.any, every >= k ? [] : o.exhaustive(terms, false, 3 * k));
      }
    }
  });

  it('skips the rows only common words hold once the k-th score is known, and ranks the same', () => {
    // Rows in many windows of rowids (a jump in ids between batches), lengths in memory: the
    // words' bounds are known, and from the second window on the commonest words are optional.
    const db = connectionOf(t.brain);
    for (let batch = 0; batch < 8; batch++) {
      fill(t.brain, 200, 100 + batch);
      db.prepare(
        `INSERT INTO messages (id, uid, thread_id, from_agent, body, created_at)
         SELECT id + 5000, uid + 1000000, thread_id, from_agent, 'cove', created_at
         FROM messages WHERE id = (SELECT max(id) FROM messages)`,
      ).run();
    }
    db.prepare(`SELECT brain_fts_norms('messages_fts_docsize')`).get();
    const o = on(db);
    for (const terms of [['harbour', 'reef'], ['rope', 'harbour', 'buoy'], ...queries(17, 25)]) {
      for (const k of [1, 3, 20]) {
        expectSame(o.fromPostings(terms, false, k), o.exhaustive(terms, false, k));
      }
    }
  });

  it('counts each word from its list in a warm process, where no count is asked for', () => {
    fill(t.brain, 900, 18);
    const db = connectionOf(t.brain);
    const o = on(db);
    const asked: string[] = [];
    const ctx = { db, q: new StatementCache(db), ranking: createRankCaches() };
    keepPostings(ctx);
    const warm = (terms: string[]) =>
      postingsTopK(ctx, {
        table: 'messages_fts',
        weights: indexWeights('message'),
        terms,
        counts: () => (asked.push(...terms), []),
        k: 0,
        wide: 25,
        epoch: 0,
      })!.any;
    for (const terms of queries(19, 10)) {
      expectSame(warm(terms), o.exhaustive(terms, false, 25));
      fill(t.brain, 30, terms.length);
      expectSame(warm(terms), o.exhaustive(terms, false, 25));
    }
    expect(asked).toEqual([]);
  });

  it('ranks a window where every row holds the words', () => {
    // Every rowid of the window [4096, 8192) taken, each row holding both words (the array of
    // slots must hold them all, and one more): a jump in ids to 4095, then 4,097 rows.
    const db = connectionOf(t.brain);
    t.brain.messages.send({ from: 'atlas', to: 'nova', body: 'keel' });
    db.prepare(
      `INSERT INTO messages (id, uid, thread_id, from_agent, body, created_at)
       SELECT 4095, uid + 1000000, thread_id, from_agent, 'keel', created_at FROM messages`,
    ).run();
    t.brain.batch(() => {
      for (let i = 0; i < 4_097; i++)
        t.brain.messages.send({
          from: 'atlas',
          to: 'nova',
          body: `harbour rope${' tide'.repeat(i % 7)}`,
        });
    });
    expect(db.prepare('SELECT min(id), max(id) FROM messages WHERE id > 4095').raw().get()).toEqual(
      [4096, 8192],
    );
    const o = on(db);
    for (const k of [5, 300]) {
      expectSame(
        o.fromPostings(['harbour', 'rope'], false, k),
        o.exhaustive(['harbour', 'rope'], false, k),
      );
      expectSame(
        o.fromPostings(['rope', 'tide'], false, k),
        o.exhaustive(['rope', 'tide'], false, k),
      );
    }
  });

  it('leaves out the rows it is told to, and ranks the next ones in their place', () => {
    fill(t.brain, 800, 3);
    const o = on(connectionOf(t.brain));
    const terms = ['harbour', 'lantern', 'gull'];
    const all = o.exhaustive(terms, false, 10_000);
    const excluded = all
      .filter((_, i) => i % 3 === 0)
      .map((r) => r.rowid)
      .sort((a, b) => a - b);
    const left = all.filter((r) => !excluded.includes(r.rowid));
    expectSame(o.fromPostings(terms, false, 25, { excluded }), left.slice(0, 25));
  });

  it('ranks only among the rows it is given, every word or any, as the statements rank them', () => {
    fill(t.brain, 800, 5);
    const o = on(connectionOf(t.brain));
    const random = mulberry32(7);
    // A few rows, some holding none of the words, some past the last row of a list.
    const included = Array.from({ length: 900 }, (_, i) => i + 1)
      .filter(() => random() < 0.15)
      .sort((a, b) => a - b);
    const among = new Set(included);
    for (const terms of queries(11, 40)) {
      for (const all of [true, false]) {
        const want = o.exhaustive(terms, all, 10_000).filter((r) => among.has(r.rowid));
        for (const k of [1, 10, 50]) {
          expectSame(o.fromPostings(terms, all, k, { included }), want.slice(0, k));
        }
      }
    }
    // An empty allow-list ranks nothing.
    expect(o.fromPostings(['harbour', 'rope'], false, 10, { included: [] })).toEqual([]);
  });

  it('stays exact as rows are added after its lists were read, the mean length moving with them', async () => {
    fill(t.brain, 700, 4);
    const o = on(connectionOf(t.brain));
    const terms = ['harbour', 'rope', 'tide', 'reef'];
    expectSame(o.fromPostings(terms, false, 40), o.exhaustive(terms, false, 40));
    fill(t.brain, 300, 5, 40);
    expectSame(o.fromPostings(terms, false, 40), o.exhaustive(terms, false, 40));
    expectSame(o.fromPostings(terms, true, 40), o.exhaustive(terms, true, 40));
    // Another connection adds more.
    fill(await t.reopen(), 200, 6);
    expectSame(o.fromPostings(terms, false, 40), o.exhaustive(terms, false, 40));
  });

  it('never gives a row deleted or edited since, by this connection or another', async () => {
    fill(t.brain, 600, 7);
    const db = connectionOf(t.brain);
    const o = on(db);
    const terms = ['harbour', 'rope', 'lantern'];
    const best = o.exhaustive(terms, false, 5);
    expectSame(o.fromPostings(terms, false, 5), best);
    const raw = connectionOf(await t.reopen());
    raw.pragma('foreign_keys = OFF');
    raw.prepare('DELETE FROM messages WHERE id = ?').run(best[0]!.rowid);
    raw.prepare(`UPDATE messages SET body = 'keel' WHERE id = ?`).run(best[1]!.rowid);
    const now = o.fromPostings(terms, false, 5);
    expect(now!.map((r) => r.rowid)).not.toContain(best[0]!.rowid);
    // The edited row may still hold a word in its thread's subject: then it scores by that alone.
    const edited = now!.find((r) => r.rowid === best[1]!.rowid);
    if (edited) expect(edited.bm25).not.toBe(best[1]!.bm25);
    expectSame(now, o.exhaustive(terms, false, 5));
  });

  it('answers the same whatever it may keep: nothing, or less than one query needs', () => {
    fill(t.brain, 900, 8);
    const o = on(connectionOf(t.brain));
    for (const budget of [0, 2_000, 50_000]) {
      for (const terms of queries(9, 8)) {
        expectSame(o.fromPostings(terms, false, 30, { budget }), o.exhaustive(terms, false, 30));
        fill(t.brain, 5, budget + terms.length);
      }
    }
  });

  it('reads nothing into memory inside a write transaction, whose rows may yet be rolled back', () => {
    fill(t.brain, 300, 10);
    const db = connectionOf(t.brain);
    const o = on(db);
    const terms = ['harbour', 'rope'];
    db.transaction(() => {
      fill(t.brain, 20, 11);
      expect(o.fromPostings(terms, false, 10)).toBeUndefined();
    })();
    expectSame(o.fromPostings(terms, false, 10), o.exhaustive(terms, false, 10));
  });

  it('reads no more rows than it may, and once read, ranks from memory what it could not before', () => {
    fill(t.brain, 600, 13);
    const o = on(connectionOf(t.brain));
    const terms = ['harbour', 'rope', 'keel'];
    // harbour and rope hold hundreds of rows each: too many to read for a process searching once.
    expect(o.fromPostings(terms, false, 20, { reads: 100 })).toBeUndefined();
    expectSame(o.fromPostings(terms, false, 20), o.exhaustive(terms, false, 20));
    // Kept now, they need no reading; only what was added since is read.
    fill(t.brain, 10, 14);
    expectSame(o.fromPostings(terms, false, 20, { reads: 0 }), o.exhaustive(terms, false, 20));
  });

  it('gives nothing when no row holds any of the words', () => {
    fill(t.brain, 50, 12);
    const o = on(connectionOf(t.brain));
    expect(o.fromPostings(['zeppelin', 'quasar'], false, 10)).toEqual([]);
    expect(o.fromPostings(['harbour', 'quasar'], true, 10)).toEqual([]);
  });
});
