import type { BrainContext } from '../context.js';
import { hasRankFunction } from '../db/rank-extension.js';

const INDEXES = ['messages_fts', 'stm_fts', 'atoms_fts'] as const;

/**
 * What a long-running process does once at start, so that its first searches cost what the later
 * ones do: every index's row lengths read into memory (brain_fts.c's norms: 2 bytes a row, ~50 ms
 * at a million messages), which a search would otherwise load in the middle of its first ranking.
 * Nothing without the compiled ranking function, nothing inside a write transaction.
 */
export function warmSearch(ctx: Pick<BrainContext, 'db' | 'q'>): void {
  if (!hasRankFunction(ctx.db) || ctx.db.inTransaction) return;
  for (const index of INDEXES)
    ctx.q.get<[string], unknown>(`SELECT brain_fts_norms(?)`).get(`${index}_docsize`);
}
