import { guardStorage } from './db/guard.js';
import { writeWithoutWaiting } from './db/no-wait.js';
import type { Embedder } from './embed/embedder.js';
import { readSpace, type VectorSpace } from './embed/store.js';
import { touchAgent } from './messaging/poll.js';
import { flushNoted } from './context.js';
import { flushAccesses } from './knowledge/access-counts.js';
import { flushWordCounts } from './search/word-counts.js';
import { openContext, type OpenBrainOptions } from './open-context.js';
import type { HybridOptions, SearchResult } from './search/search-run.js';
import { searchHybrid, type SearchInput } from './search/search.js';

/**
 * A handle that can only search: what a one-shot `brain search` needs, without the rest of the
 * library that `openBrain` loads. Its methods behave as the same ones of `Brain`: same input
 * checks and words, same storage errors, same WAL upkeep, and the
 * accesses of memories and the words' row counts that searches noted are written on close.
 */
export interface Searcher {
  readonly path: string;
  searchHybrid(
    input: SearchInput,
    options?: HybridOptions & { embedder?: Embedder | undefined },
  ): Promise<SearchResult>;
  vectorSpace(): VectorSpace | undefined;
  touchAgent(name: string, options?: { wait?: boolean }): boolean;
  close(): void;
}

export function openSearcher(options: OpenBrainOptions): Searcher {
  const { ctx, wal } = openContext(options);
  ctx.noted.add(flushAccesses);
  ctx.noted.add(flushWordCounts);
  const db = ctx.db;
  const searcher: Searcher = {
    path: options.dbPath,
    searchHybrid: (input, options = {}) => searchHybrid(ctx, options.embedder, input, options),
    vectorSpace: () => readSpace(ctx),
    touchAgent: (name, options) => {
      if (options?.wait === false) return writeWithoutWaiting(db, () => touchAgent(ctx, name));
      touchAgent(ctx, name);
      return true;
    },
    close: () => {
      if (!db.open) return;
      try {
        flushNoted(ctx); // as Brain.close: one last attempt, never waiting
      } finally {
        db.close();
      }
    },
  };
  return guardStorage(searcher, options.dbPath, wal.check);
}
