import { guardStorage } from './db/guard.js';
import { writeWithoutWaiting } from './db/no-wait.js';
import type { Embedder } from './embed/embedder.js';
import { readSpace, type VectorSpace } from './embed/store.js';
import { touchAgent } from './messaging/poll.js';
import { flushNoted } from './noted.js';
import { openContext, type OpenBrainOptions } from './open-context.js';
import {
  runSearchHybrid,
  type HybridOptions,
  type SearchArgs,
  type SearchResult,
} from './search/search-run.js';

/**
 * A handle that can only search, for input already checked (quickSearchArgs): what a one-shot
 * `brain search` needs, without the schemas and the rest of the library that `openBrain` loads.
 * Its methods behave as the same ones of `Brain`: same storage errors, same WAL upkeep, and the
 * accesses of memories and the words' row counts that searches noted are written on close.
 */
export interface Searcher {
  readonly path: string;
  searchHybrid(
    args: SearchArgs,
    options?: HybridOptions & { embedder?: Embedder | undefined },
  ): Promise<SearchResult>;
  vectorSpace(): VectorSpace | undefined;
  touchAgent(name: string, options?: { wait?: boolean }): boolean;
  close(): void;
}

export function openSearcher(options: OpenBrainOptions): Searcher {
  const { ctx, wal } = openContext(options);
  const db = ctx.db;
  const searcher: Searcher = {
    path: options.dbPath,
    searchHybrid: (args, options = {}) => runSearchHybrid(ctx, options.embedder, args, options),
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
