/*
 * The BM25 term, as FTS5's bm25() and the compiled ranking functions compute it (brain_fts.h's
 * brain_norm and brain_term): the same operations in the same order, so that a score computed
 * here equals, to the bit, the one a rank statement gives the same row.
 */

export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/** The inverse document frequency of a word held by `df` of `rows` rows: FTS5's, floored at 1e-6. */
export function idf(rows: number, df: number): number {
  const v = Math.log((rows - df + 0.5) / (df + 0.5));
  return v > 0 ? v : 1e-6;
}

/** What a word adds to a row of `d` tokens holding it `f` times (weighted), mean length `avgdl`. */
export function bm25Term(wordIdf: number, f: number, d: number, avgdl: number): number {
  const norm = BM25_K1 * (1.0 - BM25_B + (BM25_B * d) / avgdl);
  return (wordIdf * (f * (BM25_K1 + 1.0))) / (f + norm);
}

/** The most a word can add to any row's score: the term's limit as f grows, idf·(k1+1). */
export function upperBound(rows: number, df: number): number {
  return idf(rows, df) * (BM25_K1 + 1);
}
