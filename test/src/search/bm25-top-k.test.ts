import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectionOf } from '../../../src/brain.js';
import { StatementCache } from '../../../src/db/open.js';
import { createRankCaches } from '../../../src/search/rank-caches.js';
import { essentialTerms, pruneTopK, type Ranked } from '../../../src/search/bm25-top-k.js';
import { upperBound } from '../../../src/search/bm25.js';
import { createWordCounter, leadingVarint } from '../../../src/search/word-counts.js';
import { buildFtsQueries, quoteTerm } from '../../../src/search/fts-query.js';
import { RANK_SQL } from '../../../src/search/rank.js';
import type { SearchType } from '../../../src/validation.js';
import { mulberry32 } from '../../../bench/crash.js';
import { tempBrain, type TempBrain } from '../../helpers.js';

let t: TempBrain;
beforeEach(async () => {
  t = await tempBrain();
});
afterEach(() => t.cleanup());

/** Seeded (mulberry32), so a failure can be replayed. */
const random = mulberry32;

// Zipf-like: word i is drawn with weight 1/(i+1), so the first words fill much of the index and
// the last ones are rare, as in real text.
const VOCABULARY = Array.from({ length: 400 }, (_, i) => `w${i.toString(36)}x`);
const STOP = ['the', 'and', 'of', 'to', 'what', 'did', 'you', 'is', 'how'];

function zipf(rand: () => number): string {
  const h = VOCABULARY.reduce((s, _, i) => s + 1 / (i + 1), 0);
  let r = rand() * h;
  for (let i = 0; i < VOCABULARY.length; i++) {
    r -= 1 / (i + 1);
    if (r <= 0) return VOCABULARY[i]!;
  }
  return VOCABULARY.at(-1)!;
}

/** n messages of Zipf-drawn words, every 40th a copy of an earlier one (equal scores: ties). */
function fillGenerated(n: number, seed: number): void {
  const rand = random(seed);
  const bodies: string[] = [];
  t.brain.batch(() => {
    for (let i = 0; i < n; i++) {
      const body =
        i % 40 === 39
          ? bodies[Math.floor(rand() * bodies.length)]!
          : Array.from({ length: 2 + Math.floor(rand() * 18) }, () => zipf(rand)).join(' ');
      bodies.push(body);
      t.brain.messages.send({ from: 'atlas', to: 'nova', body });
      if (i % 5 === 0) t.brain.knowledge.remember({ agent: 'nova', content: body });
    }
  });
}

function queriesOf(count: number, seed: number): string[] {
  const rand = random(seed);
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;
  return Array.from({ length: count }, (_, i) => {
    const shape = i % 4;
    if (shape === 0) return zipf(rand); // one word, mostly common
    if (shape === 1) return pick(VOCABULARY); // one word, mostly rare
    const words = Array.from({ length: 2 + Math.floor(rand() * 7) }, () =>
      rand() < 0.5 ? zipf(rand) : pick(VOCABULARY),
    );
    // Stop-word-heavy: more stop words than words, as questions are.
    if (shape === 3) return words.flatMap((w) => [pick(STOP), pick(STOP), w]).join(' ');
    return words.join(' ');
  });
}

function ranker(type: SearchType, brain = t.brain) {
  const db = connectionOf(brain);
  const ctx = { db, q: new StatementCache(db), ranking: createRankCaches() };
  const counter = createWordCounter(ctx, type);
  const stmt = db.prepare(RANK_SQL.brain_bm25[type].bare);
  const run = (match: string, dfs: number[], k: number) =>
    stmt.all({ match, k, df: Buffer.from(Float64Array.from(dfs).buffer) }) as Ranked[];
  return { counter, run };
}

describe('the exact top k by BM25 with pruning', () => {
  it('equals exhaustive ranking over every match, ties included, for hundreds of random queries', () => {
    fillGenerated(3000, 7);
    const { counter, run } = ranker('message');
    let pruned = 0;
    let twoStatements = 0;
    let compared = 0;
    for (const query of queriesOf(240, 11)) {
      const terms = buildFtsQueries(query)!.terms;
      const dfs = terms.map((term) => counter.count(term));
      const exhaustive = (k: number) => run(terms.map(quoteTerm).join(' OR '), dfs, k);
      for (const k of [1, 10, 50]) {
        for (const budget of [1, 60, 20_000]) {
          const got = pruneTopK(terms, dfs, counter.rows(), k, (m) => run(m, dfs, k), {
            firstPassRows: budget,
          });
          expect(got.ranked, `${query} k=${k} budget=${budget}`).toEqual(exhaustive(k));
          compared++;
          if (got.essential < terms.length) pruned++;
          if (got.statements >= 2) twoStatements++;
        }
      }
    }
    // The comparisons exercised the pruning, on both of its paths.
    expect(compared).toBe(240 * 9);
    expect(pruned).toBeGreaterThan(200);
    expect(twoStatements).toBeGreaterThan(50);
  }, 120_000); // 2,160 rankings: seconds when idle, more on a loaded machine

  it('takes the commonest word’s best rows alone when the others hold fewer than k rows, and stays exact', () => {
    fillGenerated(3000, 13);
    const { counter, run } = ranker('message');
    let alone = 0;
    let compared = 0;
    for (const query of queriesOf(70, 17)) {
      const terms = buildFtsQueries(query)!.terms;
      if (terms.length < 2) continue;
      const dfs = terms.map((term) => counter.count(term));
      const exhaustive = (k: number) => run(terms.map(quoteTerm).join(' OR '), dfs, k);
      for (const k of [5, 50, 200]) {
        let used = false;
        const single = (c: { term: string; df: number }, n: number) => {
          used = true;
          return run(quoteTerm(c.term), [c.df], n);
        };
        const got = pruneTopK(terms, dfs, counter.rows(), k, (m) => run(m, dfs, k), {
          firstPassRows: 60,
          single,
        });
        expect(got.ranked, `${query} k=${k}`).toEqual(exhaustive(k));
        compared++;
        if (used) alone++;
      }
    }
    expect(compared).toBeGreaterThan(70);
    expect(alone).toBeGreaterThan(10);
  }, 120_000);

  it('scores the rows of common essential words only where they hold a set of words that can reach θ, and stays exact', () => {
    fillGenerated(3000, 19);
    const { counter, run } = ranker('message');
    let combined = 0;
    let compared = 0;
    for (const query of queriesOf(120, 23)) {
      const terms = buildFtsQueries(query)!.terms;
      const dfs = terms.map((term) => counter.count(term));
      const exhaustive = (k: number) => run(terms.map(quoteTerm).join(' OR '), dfs, k);
      for (const k of [10, 50]) {
        const got = pruneTopK(
          terms,
          dfs,
          counter.rows(),
          k,
          (m) => {
            // A conjunction of words inside the rows chosen: the combinations were used.
            if (/" AND "/.test(m)) combined++;
            return run(m, dfs, k);
          },
          // Small enough that this brain's common words are scored only in combinations.
          { firstPassRows: 60, wholeRows: 40 },
        );
        expect(got.ranked, `${query} k=${k}`).toEqual(exhaustive(k));
        compared++;
      }
    }
    expect(compared).toBe(240);
    expect(combined).toBeGreaterThan(10);
  }, 120_000);

  it('ranks through search the same as an exhaustive search does', async () => {
    fillGenerated(1500, 3);
    const fallback = await t.reopen({ rankFunction: false }); // bm25(): every match scored, no pruning
    for (const query of queriesOf(60, 5)) {
      const ids = (b: typeof fallback) =>
        b.search.search({ query, types: ['message'], limit: 10 }).hits.map((h) => h.id);
      expect(ids(t.brain), query).toEqual(ids(fallback));
    }
  });

  it("bounds each word's part of any row's score by idf × (k1 + 1)", () => {
    fillGenerated(800, 9);
    const { counter, run } = ranker('message');
    for (const term of VOCABULARY.slice(0, 60)) {
      const df = counter.count(term);
      if (df === 0) continue;
      const [best] = run(quoteTerm(term), [df], 1);
      expect(-best!.bm25).toBeLessThan(upperBound(counter.rows(), df));
    }
  });

  it('keeps a word essential unless the bounds of the words dropped stay below the threshold', () => {
    const sorted = [
      { term: 'rare', df: 1 },
      { term: 'mid', df: 100 },
      { term: 'common', df: 5000 },
    ];
    const ub = (df: number) => upperBound(10_000, df);
    expect(essentialTerms(sorted, 10_000, -Infinity)).toHaveLength(3);
    expect(essentialTerms(sorted, 10_000, ub(5000) * 1.01)).toHaveLength(2);
    expect(essentialTerms(sorted, 10_000, (ub(5000) + ub(100)) * 1.01)).toHaveLength(1);
    // Exactly at the bound the word could still tie: kept.
    expect(essentialTerms(sorted, 10_000, ub(5000))).toHaveLength(3);
  });

  it('reads the row count from FTS5 averages record as xRowCount does', () => {
    fillGenerated(300, 1);
    const db = connectionOf(t.brain);
    const block = db.prepare(`SELECT block FROM messages_fts_data WHERE id = 1`).pluck().get();
    const docs = db.prepare(`SELECT count(*) FROM messages_fts_docsize`).pluck().get();
    expect(leadingVarint(block as Buffer)).toBe(docs);
    expect(leadingVarint(Buffer.from([0x81, 0x00]))).toBe(128);
  });
});

describe("words' row counts kept with the index", () => {
  it('stay exact after other connections insert, edit and delete rows', async () => {
    fillGenerated(500, 21);
    const { counter } = ranker('stm');
    const words = VOCABULARY.slice(0, 30);
    for (const w of words) counter.count(w); // counted and kept
    // Another tool writes through its own connection, the triggers keeping the index.
    const other = new BetterSqlite3(t.path);
    const fresh = async () => {
      const { counter: c } = ranker('stm', await t.reopen()); // a new connection: nothing kept
      return { counts: words.map((w) => c.count(w)), rows: c.rows() };
    };
    const steps = [
      async () =>
        (await t.reopen()).knowledge.remember({
          agent: 'nova',
          content: `${words[0]} ${words[1]} more`,
        }),
      // Same number of tokens, one word swapped: row count and token totals do not change.
      () =>
        other
          .prepare(`UPDATE stm SET content = replace(content, ?, ?) WHERE id = 1`)
          .run(words[0], words[29]),
      () => other.prepare(`DELETE FROM stm WHERE id IN (2, 3, 4)`).run(),
    ];
    for (const step of steps) {
      await step();
      const kept = ranker('stm').counter; // the next search on the same connection
      const want = await fresh();
      expect(words.map((w) => kept.count(w))).toEqual(want.counts);
      expect(kept.rows()).toBe(want.rows);
    }
    other.close();
  });
});

describe('ranking inside a write transaction', () => {
  it("sees the transaction's own rows in the row count, as brain_bm25 does, and ranks exactly", () => {
    fillGenerated(400, 5);
    t.brain.batch(() => {
      for (let i = 0; i < 300; i++)
        t.brain.messages.send({ from: 'atlas', to: 'nova', body: `w0x w1x ${i}` });
      const { counter, run } = ranker('message');
      const db = connectionOf(t.brain);
      expect(counter.rows()).toBe(
        db.prepare(`SELECT count(*) FROM messages_fts_docsize`).pluck().get(),
      );
      for (const query of queriesOf(40, 8)) {
        const terms = buildFtsQueries(query)!.terms;
        const dfs = terms.map((term) => counter.count(term));
        const exhaustive = run(terms.map(quoteTerm).join(' OR '), dfs, 10);
        const got = pruneTopK(terms, dfs, counter.rows(), 10, (m) => run(m, dfs, 10), {
          firstPassRows: 1,
        });
        expect(got.ranked, query).toEqual(exhaustive);
      }
    });
  });
});
