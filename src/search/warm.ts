import type { BrainContext } from '../context.js';
import { hasRankFunction } from '../db/rank-extension.js';
import type { SearchType } from '../validation.js';
import { indexWeights } from './rank.js';
import { FTS_TABLES } from './fts-tables.js';
import { primeImpacts } from './impacts.js';
import { keepPostings, PRIME_SHARE, primePostings } from './postings.js';
import { censusTokens, createWordCounter, takeCensus } from './word-counts.js';

/**
 * What a long-running process does once at start, so that its first searches cost what the later
 * ones do: every index's row lengths read into memory (brain_fts.c's norms: 2 bytes a row, ~50 ms
 * at a million messages), which a search would otherwise load in the middle of its first ranking.
 * And, once per brain (until an edit moves an index to another epoch), every word's row count
 * (word-counts.ts's census, ~0.7 s at a million messages) and the score classes of the commonest
 * (impacts.ts, ~2 s): a word's first search then need not walk its whole posting list, twice,
 * to count it and class its rows. Then, every start, the posting lists of the commonest words
 * (postings.ts: those of a 20th of the rows or more, ~1.5 s and ~70 MB at a million messages),
 * which a question of several words is ranked from. Nothing without the compiled ranking
 * function, nothing inside a write transaction.
 */
export function warmSearch(ctx: Pick<BrainContext, 'db' | 'q' | 'ranking'>): void {
  if (!hasRankFunction(ctx.db) || ctx.db.inTransaction) return;
  keepPostings(ctx);
  for (const [type, index] of Object.entries(FTS_TABLES) as Array<[SearchType, string]>) {
    ctx.q.get<[string], unknown>(`SELECT brain_fts_norms(?)`).get(`${index}_docsize`);
    const tokens = takeCensus(ctx, type);
    const counter = createWordCounter(ctx, type);
    const stats = { ...counter.totals(), epoch: counter.epoch() };
    const weights = indexWeights(type);
    if (tokens) primeImpacts({ ctx, type, weights, stats }, tokens);
    const common = censusTokens(ctx, type, Math.max(1, Math.floor(stats.rows / PRIME_SHARE)));
    primePostings(ctx, { table: index, weights, ...stats }, common);
  }
}
