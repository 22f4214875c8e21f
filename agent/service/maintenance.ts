import {
  createExtractor,
  startIdleMaintenance,
  type ExtractionWorker,
  type Extractor,
  type ExtractThreads,
  type Webhook,
  type WebhookWorker,
} from '../../src/index.js';
import type { ServiceComponent, ServiceHost } from '../contracts.js';

/**
 * Builds the extractor when the component starts; `signal` aborts when it stops, so a model call
 * in flight does not hold the service's stop.
 */
export type MakeExtractor = (host: ServiceHost, signal: AbortSignal) => Promise<Extractor>;

/**
 * `brain agent`'s idle upkeep of the brain (Brain.maintain every two seconds): the word index
 * merged and the WAL emptied between turns, so that a turn's writes rarely do either at commit;
 * idle threads archived by the config's `retention`.
 */
export function createIdleMaintenance(options: { intervalMs?: number } = {}): ServiceComponent {
  let running: { stop(): void } | undefined;
  return {
    name: 'maintenance',
    start(host) {
      running = startIdleMaintenance(host.brain.upkeep, {
        ...(options.intervalMs === undefined ? {} : { intervalMs: options.intervalMs }),
        retention: host.config().retention,
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

/**
 * `brain agent`'s extraction: new messages read into knowledge between turns (src/knowledge/extract),
 * by the extractor `make` builds (the model extractor when `extract.model` is set), else the
 * offline one.
 */
export function createExtraction(
  threads: ExtractThreads,
  make: MakeExtractor = () => createExtractor(),
): ServiceComponent {
  let worker: ExtractionWorker | undefined;
  let stopping: AbortController | undefined;
  return {
    name: 'extraction',
    async start(host) {
      stopping = new AbortController();
      const extractor = await make(host, stopping.signal);
      host.log('info', 'extraction.started', {
        extractor: `${extractor.name}@${extractor.version}`,
        threads,
      });
      worker = host.brain.knowledge.startExtracting(extractor, {
        threads,
        onError: (message) => host.log('warn', 'extraction.failed', { error: message }),
      });
    },
    async stop() {
      stopping?.abort();
      await worker?.stop();
      worker = undefined;
    },
  };
}

/**
 * `brain agent`'s webhooks out (src/webhooks/): the config's hooks told of events by a worker
 * beside the turns, so that no send waits for a receiver.
 */
export function createWebhooksOut(hooks: readonly Webhook[]): ServiceComponent {
  let worker: WebhookWorker | undefined;
  return {
    name: 'webhooks',
    start(host) {
      worker = host.brain.webhooks.worker(hooks, {
        onFailure: (hook, reason) => host.log('warn', 'webhook.failed', { hook, reason }),
      });
      worker.start();
      return Promise.resolve();
    },
    async stop() {
      await worker?.stop();
      worker = undefined;
    },
  };
}
