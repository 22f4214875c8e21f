import {
  createExtractor,
  startIdleMaintenance,
  type ExtractionWorker,
  type ExtractThreads,
} from '../../src/index.js';
import type { ServiceComponent } from '../contracts.js';

/**
 * `brain agent`'s idle upkeep of the brain (Brain.maintain every two seconds): the word index
 * merged and the WAL emptied between turns, so that a turn's writes rarely do either at commit.
 */
export function createIdleMaintenance(options: { intervalMs?: number } = {}): ServiceComponent {
  let running: { stop(): void } | undefined;
  return {
    name: 'maintenance',
    start(host) {
      running = startIdleMaintenance(host.brain.upkeep, {
        ...(options.intervalMs === undefined ? {} : { intervalMs: options.intervalMs }),
        onError: (err) => host.log('warn', 'maintenance.failed', { error: err.message }),
      });
      return Promise.resolve();
    },
    stop() {
      running?.stop();
      running = undefined;
      return Promise.resolve();
    },
  };
}

/** `brain agent`'s extraction: new messages read into knowledge between turns (src/knowledge/extract). */
export function createExtraction(threads: ExtractThreads): ServiceComponent {
  let worker: ExtractionWorker | undefined;
  return {
    name: 'extraction',
    async start(host) {
      const extractor = await createExtractor();
      worker = host.brain.knowledge.startExtracting(extractor, {
        threads,
        onError: (message) => host.log('warn', 'extraction.failed', { error: message }),
      });
    },
    async stop() {
      await worker?.stop();
      worker = undefined;
    },
  };
}
