import {
  createEmbedder,
  startEmbeddingWorker,
  type BrainConfig,
  type Embedder,
  type EmbeddingWorker,
} from '../src/index.js';
import type { BackgroundTask } from './background.js';

/** The embedder a long-running server uses for queries, once the background has made it. */
export interface EmbedderSlot {
  /** Undefined until ready (or with `BRAIN_EMBEDDER=none`): search then answers by words. */
  get(): Embedder | undefined;
  /** Makes the embedder after start-up (probing Ollama takes time) and drains the queue with it. */
  task: BackgroundTask;
}

export function embedderSlot(
  config: Pick<BrainConfig, 'embedder' | 'ollamaHost' | 'embedModel'>,
): EmbedderSlot {
  let current: Embedder | undefined;
  return {
    get: () => current,
    task(brain, log) {
      const controller = new AbortController();
      let worker: EmbeddingWorker | undefined;
      // The provider choice is said once at the default log level, never silently.
      const ready = createEmbedder(config, {
        brain: brain.embed,
        notice: (line) => log.warn(line),
      }).then(
        (embedder) => {
          if (!embedder || controller.signal.aborted) return;
          current = embedder;
          worker = startEmbeddingWorker(brain, embedder, {
            signal: controller.signal,
            onError: (message) => log.warn(message),
          });
        },
        (err: Error) => log.warn(`embedder: ${err.message}; search answers by words`),
      );
      return {
        async stop() {
          controller.abort();
          await ready;
          await worker?.stop();
        },
      };
    },
  };
}
