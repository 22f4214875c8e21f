import { connectionOf, type Brain } from '../brain.js';
import type { Embedder } from './embedder.js';
import { pause } from '../clock.js';

export interface EmbeddingWorkerOptions {
  /** Stops the worker (also cancels an embedding call in flight; its items stay queued). */
  signal?: AbortSignal;
  /** Pause between passes once the queue is empty or the embedder failed. */
  intervalMs?: number;
  /** Told each new failure (not again while the same failure repeats). */
  onError?: (message: string) => void;
}

export interface EmbeddingWorker {
  /** Stop and wait for the pass in flight to end. */
  stop(): Promise<void>;
  /** Resolves when the worker has stopped. */
  readonly done: Promise<void>;
}

/**
 * Drain the brain's embedding queue in the background of a long-running process: a pass, then a
 * pause, until stopped. Never throws; failures go to `onError` and the items stay queued.
 */
export function startEmbeddingWorker(
  brain: Brain,
  embedder: Embedder,
  options: EmbeddingWorkerOptions = {},
): EmbeddingWorker {
  const controller = new AbortController();
  const signal = options.signal
    ? AbortSignal.any([options.signal, controller.signal])
    : controller.signal;
  const interval = options.intervalMs ?? 2_000;
  let lastError: string | undefined;

  const report = (message: string) => {
    if (message === lastError) return;
    lastError = message;
    options.onError?.(message);
  };

  const db = connectionOf(brain);
  const done = (async () => {
    while (!signal.aborted && db.open) {
      try {
        const result = await brain.embed.embedQueued(embedder, { signal });
        if (result.errors.length > 0) for (const e of result.errors) report(e);
        else if (result.embedded > 0) lastError = undefined;
      } catch (err) {
        if (!db.open || signal.aborted) break;
        report(`embedding worker: ${(err as Error).message}`);
      }
      await pause(interval, signal);
    }
  })();

  return {
    done,
    async stop() {
      controller.abort();
      await done;
    },
  };
}
