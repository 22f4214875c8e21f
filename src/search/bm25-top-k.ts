import type { Database } from 'better-sqlite3';
import type { BrainContext } from '../context.js';
import type { SearchType } from '../validation.js';
import { quoteTerm } from './fts-query.js';

/**
 * The exact top k by BM25 of the rows holding any of a query's words, without scoring every one
 * of them (MaxScore, Turtle & Flood 1995, in two statements).
 *
 * The bound. brain_bm25 gives a row Σ idf(t)·f·(k1+1)/(f + k1·(1−b+b·D/avgdl)) over the query's
 * words t, f being t's weighted hits in the row. For f ≥ 0 and a positive denominator that term
 * is below idf(t)·(k1+1), whatever the row: so a row holding only words of a set S scores below
 * UB(S) = Σ_{t∈S} idf(t)·(k1+1). idf(t) depends on the word's row count alone, which ranking needs
 * anyway (kept per connection below); the bound needs nothing else.
 *
 * The pruning. Let θ be the k-th best score among some rows. Sort the words by UB, lowest first
 * (highest row count first), and let L be the longest such prefix with UB(L) < θ; E, the rest, are
 * the essential words. A row holding no word of E scores below θ, so it cannot enter the top k:
 * scoring only the rows holding a word of E, by every word of the query, finds the same top k as
 * scoring every row, ties included (ties go to the lower rowid in both, and a pruned row is
 * strictly below θ). The statement is `(t1 OR … OR tn) AND (e1 OR …)`: brain_bm25 scores the first
 * n phrases, so each row's score is the very sum the exhaustive statement computes, term by term
 * in the same order. FTS5 answers the AND by seeking the common words' posting lists to the rows
 * of the rare ones (doclist indexes), so their long lists are not read in full.
 *
 * θ comes from a first statement over the rows of the rarest words (up to FIRST_PASS_ROWS rows in
 * all, at least one word; more words while those find fewer than k rows): its k-th score is a
 * lower bound of the true k-th. When the essential words it gives are among those rarest words,
 * its top k is already exact; otherwise one more statement scores the rows of the essential
 * words (both sets are prefixes of the same order).
 */

export const BM25_K1 = 1.2;

/** How many posting rows the first statement may score to find θ. */
export const FIRST_PASS_ROWS = 20_000;

/** brain_bm25's inverse document frequency: FTS5's, floored at 1e-6. */
export function idf(rows: number, df: number): number {
  const v = Math.log((rows - df + 0.5) / (df + 0.5));
  return v > 0 ? v : 1e-6;
}

/** The most a word can add to any row's score. */
export function upperBound(rows: number, df: number): number {
  return idf(rows, df) * (BM25_K1 + 1);
}

export interface Counted {
  term: string;
  df: number;
}

/**
 * The words a row must hold to possibly score at least `theta` (higher is better): the words
 * left after dropping, cheapest first, those whose bounds sum below theta. Words come sorted by
 * row count, most first removed; the result keeps the input order of the rarest.
 */
export function essentialTerms(sorted: Counted[], rows: number, theta: number): Counted[] {
  // Rounding: keep a margin so that float error can only make the pruning more cautious.
  let sum = 0;
  let cut = sorted.length; // sorted rarest first: drop from the end
  while (cut > 0) {
    const next = sum + upperBound(rows, sorted[cut - 1]!.df);
    if (!(next * (1 + 1e-9) + 1e-9 < theta)) break;
    sum = next;
    cut--;
  }
  return sorted.slice(0, cut);
}

/** The first words, rarest first, whose row counts sum to at most `budget` (at least one word). */
export function rarestTerms(sorted: Counted[], budget: number): Counted[] {
  let total = 0;
  let n = 0;
  while (n < sorted.length && (n === 0 || total + sorted[n]!.df <= budget))
    total += sorted[n++]!.df;
  return sorted.slice(0, n);
}

/** Rarest first; ties by the word itself, so every caller sorts alike. */
export function byRarity(counted: Counted[]): Counted[] {
  return [...counted].sort(
    (a, b) => a.df - b.df || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0),
  );
}

/** The MATCH expression scoring every term but choosing the rows holding one of `among`. */
export function prunedMatch(terms: string[], among: string[]): string {
  const all = terms.map(quoteTerm).join(' OR ');
  if (among.length >= terms.length) return all;
  return `(${all}) AND (${among.map(quoteTerm).join(' OR ')})`;
}

/**
 * One ranked row as the rank statements give it: bm25 is minus the score (lower is better).
 */
export interface Ranked {
  rowid: number;
  bm25: number;
}

/**
 * The exact top k of the rows holding any of `terms`, given each term's row count and `run`,
 * which ranks the rows a MATCH expression chooses by brain_bm25 over `terms` (first n phrases).
 * Returns what was ranked and how many statements it took (for tests and the bench).
 */
export function pruneTopK(
  terms: string[],
  dfs: number[],
  rows: number,
  k: number,
  run: (match: string) => Ranked[],
  firstPassRows = FIRST_PASS_ROWS,
): { ranked: Ranked[]; statements: number; essential: number } {
  const sorted = byRarity(terms.map((term, i) => ({ term, df: dfs[i]! })));
  // θ needs k rows: while the rarest words hold fewer, take in more words (4 × the budget, and at
  // least one more word). Each pass scores a superset of the last, so θ only rises.
  let budget = firstPassRows;
  let statements = 0;
  let first: Counted[];
  let ranked: Ranked[];
  for (;;) {
    first = rarestTerms(sorted, budget);
    ranked = run(
      prunedMatch(
        terms,
        first.map((c) => c.term),
      ),
    );
    statements++;
    if (first.length === terms.length) return { ranked, statements, essential: terms.length };
    if (ranked.length >= k) break;
    const held = first.reduce((sum, c) => sum + c.df, 0);
    budget = Math.max(budget * 4, held + sorted[first.length]!.df);
  }
  const theta = -ranked[k - 1]!.bm25;
  const essential = essentialTerms(sorted, rows, theta);
  if (essential.length <= first.length) {
    return { ranked, statements: 1, essential: essential.length };
  }
  const again = run(
    prunedMatch(
      terms,
      essential.map((c) => c.term),
    ),
  );
  return { ranked: again, statements: 2, essential: essential.length };
}

/**
 * Row counts of words, kept per connection and index, with the index's structure record as
 * their version: FTS5 rewrites that record (`<index>_data`, id 10) on every change of the index
 * (each committed insert, edit or delete writes a new segment and bumps its cookie), so a count
 * kept under the same record is exact, and a changed record drops every count of that index.
 * Computed lazily on first use (one walk of the word's posting list) rather than kept by the write
 * path: a table of counts would need FTS5's tokenizer in the write path and write on every send.
 */
interface KeptCounts {
  version: Buffer | null;
  counts: Map<string, number>;
  rows?: number;
}

const kept = new WeakMap<Database, Map<SearchType, KeptCounts>>();

/** How many words' counts a connection keeps per index, the least recently used dropped first. */
export const COUNTS_KEPT = 4096;

const TABLES: Record<SearchType, string> = {
  message: 'messages_fts',
  stm: 'stm_fts',
  atom: 'atoms_fts',
};

export interface WordCounter {
  /** Rows of the index holding the word, exact. */
  count(term: string): number;
  /** Rows of the index. */
  rows(): number;
}

export function createWordCounter(
  ctx: Pick<BrainContext, 'db' | 'q'>,
  type: SearchType,
): WordCounter {
  const table = TABLES[type];
  const countStmt = ctx.q.get<[string], { n: number }>(
    `SELECT count(*) AS n FROM ${table} WHERE ${table} MATCH ?`,
  );
  let entry: KeptCounts | undefined;
  const counts = (): Map<string, number> => {
    if (entry) return entry.counts;
    // Inside a transaction the rows counted may yet be rolled back: count afresh, keep nothing.
    if (ctx.db.inTransaction) {
      entry = { version: null, counts: new Map() };
      return entry.counts;
    }
    const version =
      ctx.q.get<[], { block: Buffer }>(`SELECT block FROM ${table}_data WHERE id = 10`).get()
        ?.block ?? null;
    let byType = kept.get(ctx.db);
    if (!byType) kept.set(ctx.db, (byType = new Map()));
    const before = byType.get(type);
    if (before && version && before.version?.equals(version)) entry = before;
    else byType.set(type, (entry = { version, counts: new Map() }));
    return entry.counts;
  };
  return {
    count(term) {
      const map = counts();
      let n = map.get(term);
      if (n === undefined) n = countStmt.get(quoteTerm(term))!.n;
      map.delete(term); // last used last
      map.set(term, n);
      if (map.size > COUNTS_KEPT) map.delete(map.keys().next().value!);
      return n;
    },
    rows() {
      counts();
      entry!.rows ??= leadingVarint(
        ctx.q.get<[], { block: Buffer }>(`SELECT block FROM ${table}_data WHERE id = 1`).get()
          ?.block,
      );
      return entry!.rows;
    },
  };
}

/**
 * The first varint of a record (SQLite's varint: big-endian 7-bit groups, the 9th byte whole):
 * in FTS5's averages record (`<index>_data`, id 1) the index's row count, as xRowCount reads it.
 */
export function leadingVarint(block: Buffer | undefined): number {
  if (!block) return 0;
  let v = 0;
  for (let i = 0; i < Math.min(9, block.length); i++) {
    const b = block[i]!;
    if (i === 8) return v * 256 + b;
    v = v * 128 + (b & 0x7f);
    if (!(b & 0x80)) return v;
  }
  return v;
}
