import {
  createExtractor,
  MAINTAIN_INTERVAL_MS,
  startIdleMaintenance,
  type Brain,
  type ExtractionWorker,
  type ExtractThreads,
  type RetentionPolicy,
  type Webhook,
} from '../src/index.js';
import type { Logger } from './log.js';

/**
 * Work a long-running server does beside answering requests, started once it is ready to answer
 * (so `initialize` never waits for it) and stopped on shutdown. The seam for the embedding queue:
 * `brain mcp` and `brain serve` pass the drainer here (see cli/commands/mcp.ts).
 */
export type BackgroundTask = (brain: Brain, log: Logger) => { stop(): void | Promise<void> };

export function startBackground(
  tasks: BackgroundTask[],
  brain: Brain,
  log: Logger,
): () => Promise<void> {
  const running = tasks.map((task) => task(brain, log));
  return async () => {
    for (const r of running) await r.stop();
  };
}

/** How often a long-running server writes what its searches noted (memories' accesses, words' counts). */
export const ACCESS_FLUSH_MS = 5_000;

/**
 * Write what searches noted (the accesses of memories, words' row counts) every `intervalMs` (and
 * once more on stop), never waiting for the write lock: when another process holds it, they wait
 * for the next round. Searches only note in memory, so they never queue behind a writer for this
 * bookkeeping.
 */
export function accessFlushTask(intervalMs = ACCESS_FLUSH_MS): BackgroundTask {
  return (brain, log) => {
    const flush = () => {
      try {
        brain.upkeep.flushNoted();
      } catch (err) {
        log.warn(`writing access and word counts failed: ${(err as Error).message}`);
      }
    };
    const timer = setInterval(flush, intervalMs);
    timer.unref();
    return {
      stop() {
        clearInterval(timer);
        flush();
      },
    };
  };
}

/**
 * Idle upkeep of the brain's file every `intervalMs` (Brain.maintain): the word index merged in
 * short steps and the WAL emptied while no request runs, so that the writes of requests rarely
 * have to do either at commit; idle threads archived by `retention`. Never waits for the write
 * lock; stops with the server.
 */
export function maintenanceTask(
  intervalMs = MAINTAIN_INTERVAL_MS,
  retention?: RetentionPolicy,
): BackgroundTask {
  return (brain, log) => {
    const running = startIdleMaintenance(brain.upkeep, {
      intervalMs,
      retention,
      onError: (err) => log.warn(`idle upkeep of the brain failed: ${err.message}`),
    });
    return { stop: () => running.stop() };
  };
}

/** How long a server waits after starting before it warms its search. */
export const WARM_AFTER_MS = 1_000;

/**
 * Warm the search once, a moment after the server is ready (Brain.warmSearch: row lengths in
 * memory, the census of every word's count once per brain, the commonest words' posting lists):
 * from then on a question of common words is ranked from the lists, not by statements (at a
 * million messages, the dev set's questions p50 13.8 → 4.4 ms, p99 61 → 8 ms). About 1.5 s of
 * work (up to ~5 s the first time in a big brain) that a request arriving meanwhile waits for;
 * `initialize` and the first tool listing come before it.
 */
export function warmSearchTask(afterMs = WARM_AFTER_MS): BackgroundTask {
  return (brain, log) => {
    const timer = setTimeout(() => {
      try {
        brain.search.warmSearch();
      } catch (err) {
        log.warn(`warming the search failed: ${(err as Error).message}`);
      }
      brain.search
        .warmTimeWords()
        .catch((err: unknown) =>
          log.warn(`loading the time reader failed: ${(err as Error).message}`),
        );
    }, afterMs);
    timer.unref();
    return { stop: () => clearTimeout(timer) };
  };
}

/**
 * Read new messages into knowledge in the background (the offline extractor unless configured
 * otherwise), in small batches between requests; `BRAIN_EXTRACT_THREADS=none` turns it off.
 */
export function extractionTask(threads: ExtractThreads): BackgroundTask {
  return (brain, log) => {
    if (threads === 'none') return { stop() {} };
    const controller = new AbortController();
    let worker: ExtractionWorker | undefined;
    const ready = createExtractor().then(
      (extractor) => {
        if (controller.signal.aborted) return;
        worker = brain.knowledge.startExtracting(extractor, {
          threads,
          signal: controller.signal,
          onError: (message) => log.warn(message),
        });
      },
      (err: Error) => log.warn(`extraction: ${err.message}`),
    );
    return {
      async stop() {
        controller.abort();
        await ready;
        await worker?.stop();
      },
    };
  };
}

/**
 * Webhooks out (src/webhooks/): events noticed and posted by a worker beside the requests, so
 * that a send never waits for a receiver. A failure is logged by hook name, never with its secret.
 */
export function webhooksTask(hooks: readonly Webhook[]): BackgroundTask {
  return (brain, log) => {
    if (hooks.length === 0) return { stop() {} };
    const worker = brain.webhooks.worker(hooks, {
      onFailure: (hook, reason) => log.warn(`webhook ${hook}: ${reason}`),
    });
    worker.start();
    return { stop: () => worker.stop() };
  };
}
