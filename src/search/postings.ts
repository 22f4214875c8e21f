import type { Ranked } from './bm25-top-k.js';
import { quoteTerm } from './fts-query.js';
import { ownToken, tokenOf, type RankContext } from './word-counts.js';

/*
 * The exact best k of a query's rows by brain_bm25, from the words' posting lists kept in memory
 * (brain_topk, src/native/brain_topk.c): every row holding a word scored, a few nanoseconds a
 * posting, where a rank statement spends ~0.7 µs a row through FTS5's cursor. A word's first
 * search reads its list (~0.1 µs a row); later ones read only the rows added since. Scores and
 * order are the rank statements' (test/src/search/postings.test.ts compares them).
 *
 * Worth it for a process that searches again and again (brain chat, brain agent, the MCP server:
 * they warm their search, warm.ts): there the commonest words' lists are read while idle and kept.
 * A process that searches once (brain search) reads no long list for one query: its words are
 * ranked from memory only when those not kept hold few rows, else by statements (rank.ts).
 */

/** How many bytes of posting lists a connection keeps per index (5 a posting), least used dropped first. */
export const POSTINGS_BUDGET = 96 * 2 ** 20;

/** The most rows a process that has not warmed its search reads to rank one query from memory. */
export const COLD_READS = 20_000;

/** Words held by at least this share of an index's rows have their lists read while warming. */
export const PRIME_SHARE = 20;

/** The connection searches again and again: its lists are worth reading whole (warm.ts). */
export function keepPostings(ctx: RankContext): void {
  ctx.ranking.warm = true;
}

export interface PostingsQuery {
  /** The index, as 'messages_fts'. */
  table: string;
  /** Its bm25 column weights, as the rank statements give them. */
  weights: string;
  terms: string[];
  /**
   * Each term's row count, in order: asked for only when the search is not warm (its lists'
   * lengths are the same counts, known once read).
   */
  counts: () => number[];
  /** How many of the rows holding every term to rank (0: none). */
  k: number;
  /** How many of the rows holding any term to rank, when fewer than k hold every one (0: none). */
  wide: number;
  /** Rows never to give: ascending rowids as native doubles. */
  excluded?: Buffer;
  /** The only rows to rank, in the same form (each sought in the words' lists). */
  included?: Buffer;
  /**
   * Rank the `included` rows as an index of their own: each word's idf from the rows among them
   * that hold it, and the mean length theirs (default: the whole index's).
   */
  own?: boolean;
  /** The word counts' epoch (word-counts.ts): -1 keeps nothing in memory. */
  epoch: number;
  budget?: number;
  /** The most rows read to answer (default: none past COLD_READS unless the search is warm). */
  reads?: number;
}

/** The best of the rows holding every term, and of those holding any (when asked for). */
export interface PostingsRanked {
  every: Ranked[];
  any: Ranked[];
}

/**
 * The best rows, best first, or undefined when they cannot be ranked from memory here (a write
 * transaction, too many rows to read for a process that has not warmed, a list the function
 * cannot hold): the caller then ranks with statements. Only on a connection with the ranking
 * extension, which brain_topk is part of (binding.gyp).
 */
export function postingsTopK(ctx: RankContext, query: PostingsQuery): PostingsRanked | undefined {
  const { table, weights, terms } = query;
  // Lists read whole are worth it only where they are kept: a warm process, in an epoch (without
  // one, migration 0015 missing, nothing is kept and each search would read them again).
  const unlimited = query.reads === undefined && ctx.ranking.warm && query.epoch >= 0;
  const statement = ctx.q.get<[Record<string, unknown>], Buffer | null>(
    `SELECT brain_topk(${table}, @keys, @words, @df, '${table}_docsize', @excluded, @included, @own, @k, @wide,
       @epoch, @budget, @reads, ${weights})
     FROM ${table} WHERE ${table} MATCH @match LIMIT 1`,
  );
  const blob = statement.pluck().get({
    // Lists are kept by token, so that "gardens" and "garden" share one.
    keys: terms.map((t) => tokenOf(ctx, t) ?? t).join('\x1f'),
    words: terms.join('\x1f'),
    df: unlimited ? null : Buffer.from(Float64Array.from(query.counts()).buffer),
    excluded: query.excluded ?? null,
    included: query.included ?? null,
    own: query.own === true ? 1 : 0,
    k: query.k,
    wide: query.wide,
    epoch: query.epoch,
    budget: query.budget ?? POSTINGS_BUDGET,
    reads: query.reads ?? (unlimited ? -1 : COLD_READS),
    match: terms.map(quoteTerm).join(' OR '),
  });
  // No row holds any of the words: the statement gives none.
  if (blob === undefined) return { every: [], any: [] };
  if (blob === null) return undefined;
  const a = new Float64Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength));
  const pairs = (from: number, to: number): Ranked[] => {
    const ranked: Ranked[] = [];
    for (let i = from; i + 1 < to; i += 2) ranked.push({ rowid: a[i]!, bm25: a[i + 1]! });
    return ranked;
  };
  const every = 1 + 2 * a[0]!;
  return { every: pairs(1, every), any: pairs(every, a.length) };
}

/**
 * Read now the lists of an index's commonest tokens (from its census, word-counts.ts), those
 * held by a PRIME_SHARE-th of its rows or more, commonest first, while they fit the budget: the
 * words a question most often holds, and the longest to read in the middle of a search. About
 * 1.5 s and 70 MB for the 120 such tokens of a million messages.
 */
export function primePostings(
  ctx: RankContext,
  index: { table: string; weights: string; rows: number; epoch: number },
  tokens: ReadonlyArray<{ term: string; n: number }>,
  budget = POSTINGS_BUDGET,
): number {
  if (index.epoch < 0 || ctx.db.inTransaction) return 0;
  const from = Math.max(1, Math.floor(index.rows / PRIME_SHARE));
  let bytes = 0;
  let read = 0;
  for (const t of [...tokens].sort((a, b) => b.n - a.n)) {
    if (t.n < from || bytes + 5 * t.n > budget) break;
    // A token that is not a word of its own cannot be asked for by a quoted phrase.
    if (!ownToken(ctx, t.term)) continue;
    postingsTopK(ctx, {
      table: index.table,
      weights: index.weights,
      terms: [t.term],
      counts: () => [t.n],
      k: 0,
      wide: 1,
      epoch: index.epoch,
      budget,
    });
    bytes += 5 * t.n;
    read++;
  }
  return read;
}
