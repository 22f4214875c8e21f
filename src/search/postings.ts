import type { BrainContext } from '../context.js';
import type { Ranked } from './bm25-top-k.js';
import { quoteTerm } from './fts-query.js';

/*
 * The exact best k of a query's rows by brain_bm25, from the words' posting lists kept in memory
 * (brain_topk, src/native/brain_topk.c): every row holding a word scored, a few nanoseconds a
 * posting, where a rank statement spends ~0.7 µs a row through FTS5's cursor. The first search of
 * a word reads its list (~0.1 µs a row); later ones read only the rows added since. Its scores and
 * order are those of the rank statements (test/src/search/postings.test.ts compares them).
 */

/** How many bytes of posting lists a connection keeps per index (5 a posting), the least used dropped first. */
export const POSTINGS_BUDGET = 96 * 2 ** 20;

export interface PostingsQuery {
  /** The index, as 'messages_fts'. */
  table: string;
  /** Its bm25 column weights, as the rank statements give them. */
  weights: string;
  terms: string[];
  /** Each term's row count, in order. */
  dfs: number[];
  k: number;
  /** Only the rows holding every term. */
  all: boolean;
  /** Rows never to give: ascending rowids as native doubles. */
  excluded?: Buffer;
  /** The word counts' epoch (word-counts.ts): -1 keeps nothing in memory. */
  epoch: number;
  budget?: number;
}

/**
 * The best k, best first, or undefined when the function cannot rank here (a write transaction,
 * a list it cannot hold): the caller then ranks with statements.
 */
export function postingsTopK(
  ctx: Pick<BrainContext, 'q'>,
  query: PostingsQuery,
): Ranked[] | undefined {
  const { table, weights } = query;
  const blob = ctx.q
    .get<[Record<string, unknown>], Buffer | null>(
      `SELECT brain_topk(${table}, @terms, @df, '${table}_docsize', @excluded, @k, @all, @epoch,
         @budget, ${weights})
       FROM ${table} WHERE ${table} MATCH @match LIMIT 1`,
    )
    .pluck()
    .get({
      terms: query.terms.join('\x1f'),
      df: Buffer.from(Float64Array.from(query.dfs).buffer),
      excluded: query.excluded ?? null,
      k: query.k,
      all: query.all ? 1 : 0,
      epoch: query.epoch,
      budget: query.budget ?? POSTINGS_BUDGET,
      match: query.terms.map(quoteTerm).join(' OR '),
    });
  // No row holds any of the words: the statement gives none.
  if (blob === undefined) return [];
  if (blob === null) return undefined;
  const a = new Float64Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength));
  const ranked: Ranked[] = [];
  for (let i = 0; i + 1 < a.length; i += 2) ranked.push({ rowid: a[i]!, bm25: a[i + 1]! });
  return ranked;
}
