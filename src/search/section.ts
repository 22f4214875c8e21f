import { flushAccesses } from '../knowledge/access-counts.js';
import { warmSearch } from './warm.js';
import { flushWordCounts } from './word-counts.js';
import { recent, type RecentInput } from './recent.js';
import type { Embedder } from '../embed/embedder.js';
import { readSpace } from '../embed/store.js';
import { search, searchHybrid, type HybridOptions, type SearchInput } from './search.js';

import type { BrainContext } from '../context.js';
import { flushNorms } from './norms.js';
import { readTime } from './time-words.js';

/** Finding things again: by words, by words and meaning, by time. */
export interface SearchSection {
  /** Search by words only (FTS5), synchronously. */
  search: (input: SearchInput) => ReturnType<typeof search>;
  /** Search by words and meaning; words only when `embedder` is undefined or has no vectors here. */
  searchHybrid: (
    input: SearchInput,
    options?: HybridOptions & { embedder?: Embedder },
  ) => ReturnType<typeof searchHybrid>;
  recent: (input?: RecentInput) => ReturnType<typeof recent>;
  /** Which model made this brain's vectors, if any: what a query must be embedded with. */
  vectorSpace: () => ReturnType<typeof readSpace>;
  /**
   * Read what searches keep in memory (every index's row lengths) now, so the first searches of a
   * long-running process cost what later ones do. `brain chat` and `brain agent` call it at start.
   */
  warmSearch(): void;
  /**
   * Run one search that names a time, and read two more: the time reader (chrono-node) loads, the
   * time-filtered ranking statements are made and chrono's expressions compiled, so the first
   * question that names a time does not pay for them (~0.3 s together). For long-running
   * processes, in their idle time.
   */
  warmTimeWords(timeZone?: string): Promise<void>;
}

export function searchSection(ctx: BrainContext, _dbPath: string): SearchSection {
  // Searches note the memories they return and the row counts of the words they counted, and
  // hand back the row lengths they read for the next process.
  ctx.noted.add(flushAccesses);
  ctx.noted.add(flushWordCounts);
  ctx.noted.add(flushNorms);
  return {
    search: (input) => search(ctx, input),
    searchHybrid: (input, options = {}) => searchHybrid(ctx, options.embedder, input, options),
    recent: (input) => recent(ctx, input),
    vectorSpace: () => readSpace(ctx),
    warmSearch: () => warmSearch(ctx),
    warmTimeWords: async (timeZone) => {
      try {
        await searchHybrid(
          ctx,
          undefined,
          // Messages only: a search notes the memories it returns, and this one is no one's.
          { query: 'brain since last week', types: ['message'], limit: 1 },
          { timeWords: { now: ctx.clock(), timeZone } },
        );
        // V8 compiles a regular expression to machine code on its second run: chrono's many are
        // compiled here, in idle time, not in the first real question (~0.1 s); a third reading
        // leaves the first question what any later one costs.
        for (const words of ['brain in June', 'brain two days ago'])
          await readTime(words, { now: ctx.clock(), timeZone });
      } catch {
        // A head start only: the process may close the brain before it ends (`brain chat`
        // answering /exit at once), and the first real question then loads what it needs.
      }
    },
  };
}
