import type { Embedder } from './embedder.js';
import { drainQueue, queueStatus, type DrainOptions } from './queue.js';
import { readSpace } from './store.js';

import type { BrainContext } from '../context.js';

/** The vectors of meaning search: the embedding queue and the model that made them. */
export interface EmbedSection {
  /** Embed queued items until none is ready (see `startEmbeddingWorker` for a background loop). */
  embedQueued: (embedder: Embedder, options?: DrainOptions) => ReturnType<typeof drainQueue>;
  /** Pending and failed counts of the embedding queue, and the model of the vectors. */
  embedStatus: () => ReturnType<typeof queueStatus>;
  /** Which model made this brain's vectors, if any. */
  vectorSpace: () => ReturnType<typeof readSpace>;
}

export function embedSection(ctx: BrainContext, _dbPath: string): EmbedSection {
  return {
    embedQueued: (embedder, options) => drainQueue(ctx, embedder, options),
    embedStatus: () => queueStatus(ctx),
    vectorSpace: () => readSpace(ctx),
  };
}
