import type { WordCountNotes } from '../context.js';
import type { SearchType } from '../validation.js';
import { bm25Term, idf } from './bm25.js';
import type { Ranked } from './bm25-top-k.js';
import { quoteTerm } from './fts-query.js';
import { FTS_TABLES } from './fts-tables.js';
import type { AddedRow, ImpactClass, WordImpacts } from './rank-caches.js';
import {
  keepImpacts,
  noteImpacts,
  ownToken,
  storedImpacts,
  type RankContext,
} from './word-counts.js';

/*
 * The exact top k of one common word without scoring each of its rows (Lucene keeps "impacts"
 * in its postings for the same purpose).
 *
 * For one word, BM25 gives a row idf·f·(k1+1)/(f + k1·(1−b+b·D/avgdl)): the row enters only
 * through f, the word's weighted hits in it, and D, its length. Rows of one (f, D) class score
 * alike, and ties go to the lower rowid, so the top k is: every row of the classes that score
 * above the k-th, then the lowest rowids of the class the k-th falls in. A word held by half a
 * million rows has a few hundred classes. brain_impacts (src/native/brain_fts.c) reads the
 * word's rows once and gives each class's count and, for the best classes, their lowest rowids;
 * a connection keeps that per word. A search then orders the classes at today's idf and mean
 * length (both move as rows are added; a class's order may move with them), takes the rows of
 * the classes it needs, and scores the rows added since (above `upto`, read newest first) one
 * by one. When a class it needs kept too few rowids, it reads the word again.
 *
 * What is kept is valid while the index's rows at or below `upto` are unchanged: the epochs of
 * migration 0015 (word-counts.ts) move on a delete, an edit or an insert below the newest id, and
 * a search reads the word again in a new epoch.
 */

/**
 * A word held by fewer rows than a 20th of its index, or than 10,000, is scored row by row (a few
 * milliseconds at most); by fewer than 2,000, always.
 */
export const IMPACTS_FROM = 10_000;
export const IMPACTS_SHARE = 20;
export const IMPACTS_MIN = 2_000;

/** From how many rows a word of an index of `rows` rows is read by classes. */
export function impactsFrom(rows: number): number {
  return Math.max(IMPACTS_MIN, Math.min(IMPACTS_FROM, Math.floor(rows / IMPACTS_SHARE)));
}

/** The largest k answered from the classes: each class keeps at most this many rowids. */
export const IMPACTS_KEEP = 256;

/** Read the word again once this many rows holding it were added since. */
export const IMPACTS_REREAD_AFTER = 2_000;

/** Load every row's length into memory (brain_fts.c's norms) before reading a word this common. */
const NORMS_FROM = 50_000;

/** How many words' classes a connection keeps per index, the least recently used dropped first. */
export const IMPACTS_WORDS = 256;

/** What an index's ranking needs to know of it, as brain_bm25 reads it. */
export interface IndexStats {
  /** Rows of the index. */
  rows: number;
  /** Tokens of every row, all columns. */
  tokens: number;
  /** The word counts' epoch (migration 0015), -1 without it. */
  epoch: number;
}

/** Parse brain_impacts's blob (brain_fts.c): native doubles. */
function parse(blob: Buffer, epoch: number): WordImpacts {
  const a = new Float64Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength));
  const n = a[0]!;
  const classes: ImpactClass[] = [];
  let at = 3 + 4 * n;
  for (let i = 0; i < n; i++) {
    const o = 3 + 4 * i;
    const keptN = a[o + 3]!;
    classes.push({
      f: a[o]!,
      d: a[o + 1]!,
      count: a[o + 2]!,
      kept: Array.from(a.subarray(at, at + keptN)),
    });
    at += keptN;
  }
  return { epoch, upto: a[1]!, total: a[2]!, classes };
}

/** When a word is common enough to be read by classes, and how much each class keeps (tests lower them). */
export interface ImpactsRule {
  from?: number;
  keep?: number;
}

/** An index as the classes are read and used: its words' weights and today's figures. */
export interface ImpactsIndex {
  /** With the brain's notes, classes read are kept in the brain for the next process. */
  ctx: RankContext & { wordCounts?: WordCountNotes };
  type: SearchType;
  /** bm25's column weights, as the rank statements give them. */
  weights: string;
  stats: IndexStats;
}

/**
 * The best k rows of the index holding `term` (held by `df` rows), best first, as the bare rank
 * statement gives them; undefined when the classes cannot answer (k too large, inside a write
 * transaction with nothing kept, counts that do not add up): rank row by row then.
 */
export function impactsTopK(
  index: ImpactsIndex,
  term: string,
  df: number,
  k: number,
  rule: ImpactsRule = {},
): Ranked[] | undefined {
  if (k > (rule.keep ?? IMPACTS_KEEP)) return undefined;
  const { rows, tokens } = index.stats;
  return withImpacts(index, term, df, rule, (word, added) =>
    fromClasses(word, added, idf(rows, df), tokens / rows || 1, k),
  );
}

/**
 * The most any row holding `term` scores for it, exactly as brain_bm25 would score the best of
 * them (MaxScore's bound for the word, far below bm25-top-k.ts's idf·(k1+1) for most words);
 * undefined when the classes cannot tell.
 */
export function impactsBound(
  index: ImpactsIndex,
  term: string,
  df: number,
  rule: ImpactsRule = {},
): number | undefined {
  const { rows, tokens } = index.stats;
  return withImpacts(index, term, df, rule, (word, added) => {
    const wordIdf = idf(rows, df);
    const avgdl = tokens / rows || 1;
    let best = 0;
    for (const c of word.classes) best = Math.max(best, bm25Term(wordIdf, c.f, c.d, avgdl));
    for (const r of added) best = Math.max(best, bm25Term(wordIdf, r.f, r.d, avgdl));
    return best;
  });
}

/**
 * `use` given the word's classes, read now or kept from before, and the rows added since; the
 * word is read again (once) when what is kept is out of date or `use` finds it insufficient.
 */
function withImpacts<T>(
  { ctx, type, weights, stats }: ImpactsIndex,
  term: string,
  df: number,
  { from = impactsFrom(stats.rows), keep = IMPACTS_KEEP }: ImpactsRule,
  use: (word: WordImpacts, added: AddedRow[]) => T | undefined,
): T | undefined {
  if (df < from || stats.epoch < 0) return undefined;
  const table = FTS_TABLES[type];
  const match = quoteTerm(term);
  const words = ctx.ranking.impacts[type];
  /** The word's classes: as the brain keeps them, unless `fresh`, else read from its rows. */
  const read = (fresh: boolean): WordImpacts | undefined => {
    // What a write transaction sees may yet be rolled back: keep nothing read inside one.
    if (ctx.db.inTransaction) return undefined;
    const stored = fresh ? undefined : storedImpacts(ctx, type, term, stats.epoch);
    if (stored) return remember(parse(stored, stats.epoch));
    const blob = readClasses(ctx, type, weights, term, df, keep);
    if (!blob) return undefined;
    const word = parse(blob, stats.epoch);
    noteImpacts(ctx, type, term, {
      n: word.total,
      upto: word.upto,
      epoch: stats.epoch,
      impacts: blob,
    });
    return remember(word);
  };
  const remember = (word: WordImpacts): WordImpacts => {
    words.set(term, word);
    if (words.size > IMPACTS_WORDS) words.delete(words.keys().next().value!);
    return word;
  };

  let word = words.get(term);
  if (word && word.epoch !== stats.epoch) word = undefined;
  if (word) {
    words.delete(term); // last used last
    words.set(term, word);
  }
  for (let attempt = 0; attempt < 2; attempt++) {
    word ??= read(attempt > 0);
    if (!word) return undefined;
    // stats.rows was read before: rows added since it was read only make the next search look.
    const added =
      word.since?.rows === stats.rows
        ? word.since.added
        : rowsAbove(ctx, table, weights, match, word.upto);
    if (added === undefined) {
      word = undefined; // too many since: read again
      continue;
    }
    if (!ctx.db.inTransaction) word.since = { rows: stats.rows, added };
    if (word.total + added.length !== df) return undefined; // another writer between statements
    const result = use(word, added);
    if (result !== undefined) return result;
    word = undefined; // a class it needs kept too few rows at today's mean length: read again
  }
  return undefined;
}

/** brain_impacts's blob of a word's classes, read from every row holding it. */
function readClasses(
  ctx: RankContext,
  type: SearchType,
  weights: string,
  term: string,
  df: number,
  keep: number,
): Buffer | null {
  const table = FTS_TABLES[type];
  return (
    ctx.q
      .get<[number, number, string], Buffer | null>(
        `SELECT brain_impacts(${table}, '${table}_docsize', ?, ?, ${weights})
         FROM ${table} WHERE ${table} MATCH ? LIMIT 1`,
      )
      .pluck()
      .get(keep, df >= NORMS_FROM ? 1 : 0, quoteTerm(term)) ?? null
  );
}

/**
 * Read now, and keep in the brain, the classes of an index's common tokens that have none kept
 * (each token its own word: `tokens` from the census, word-counts.ts), so that no search pays
 * for reading them: about 2 s for the 330 tokens held by 10,000 rows or more of a million
 * messages, once per brain and epoch. Written without waiting; false when another writer held
 * the lock (they are read when first searched for, as without this).
 */
export function primeImpacts(
  index: ImpactsIndex,
  tokens: ReadonlyArray<{ term: string; n: number }>,
): boolean {
  const { ctx, type, weights, stats } = index;
  if (stats.epoch < 0 || ctx.db.readonly || ctx.db.inTransaction) return true;
  const from = impactsFrom(stats.rows);
  const read: Array<{ term: string; n: number; upto: number; impacts: Buffer }> = [];
  for (const t of tokens) {
    if (t.n < from || !ownToken(ctx, t.term) || storedImpacts(ctx, type, t.term, stats.epoch))
      continue;
    const blob = readClasses(ctx, type, weights, t.term, t.n, IMPACTS_KEEP);
    if (!blob) continue;
    const word = parse(blob, stats.epoch);
    read.push({ term: t.term, n: word.total, upto: word.upto, impacts: blob });
  }
  return keepImpacts(ctx, type, stats.epoch, read);
}

/** The rows above `upto` holding the word, newest first; undefined when there are too many. */
function rowsAbove(
  ctx: RankContext,
  table: string,
  weights: string,
  match: string,
  upto: number,
): AddedRow[] | undefined {
  const newestFirst = ctx.q.get<[string], AddedRow>(
    `SELECT rowid, brain_hits(${table}, ${weights}) AS f, brain_length(${table}, '${table}_docsize') AS d
     FROM ${table} WHERE ${table} MATCH ? ORDER BY rowid DESC`,
  );
  const rows: AddedRow[] = [];
  for (const row of newestFirst.iterate(match) as IterableIterator<AddedRow>) {
    if (row.rowid <= upto) break; // the iterator is closed on leaving the loop
    if (rows.length === IMPACTS_REREAD_AFTER) return undefined;
    rows.push(row);
  }
  return rows;
}

/**
 * The top k from the classes and the rows added since; undefined when a class that holds part of
 * it did not keep enough rowids.
 */
function fromClasses(
  word: WordImpacts,
  added: AddedRow[],
  wordIdf: number,
  avgdl: number,
  k: number,
): Ranked[] | undefined {
  const scored = word.classes.map((c) => ({ c, score: bm25Term(wordIdf, c.f, c.d, avgdl) }));
  scored.sort((a, b) => b.score - a.score);
  // The k-th row's class: every class scoring at least as well may hold part of the top k.
  let held = 0;
  let cut = -Infinity;
  for (const { c, score } of scored) {
    held += c.count;
    if (held >= k) {
      cut = score;
      break;
    }
  }
  const rows: Ranked[] = [];
  for (const { c, score } of scored) {
    if (score < cut) break;
    const need = Math.min(c.count, k);
    if (c.kept.length < need) return undefined;
    for (let i = 0; i < need; i++) rows.push({ rowid: c.kept[i]!, bm25: -score });
  }
  for (const r of added) rows.push({ rowid: r.rowid, bm25: -bm25Term(wordIdf, r.f, r.d, avgdl) });
  rows.sort((a, b) => a.bm25 - b.bm25 || a.rowid - b.rowid);
  return rows.slice(0, k);
}
