import type { BrainContext } from './context.js';
import { flushAccesses } from './knowledge/access-counts.js';
import { flushWordCounts } from './search/word-counts.js';

/**
 * Write what reads noted for later (memories' access counts, words' row counts), each in one
 * short transaction that never waits for the write lock. True when nothing remains noted; false
 * when another writer held the lock (what was not written stays noted for the next call).
 */
export function flushNoted(ctx: BrainContext): boolean {
  const accesses = flushAccesses(ctx);
  const counts = flushWordCounts(ctx);
  return accesses && counts;
}
