import type { BrainContext } from '../context.js';
import {
  listDeliveries,
  replayDelivery,
  type DeliveryRecord,
  type ListDeliveriesInput,
} from './deliveries.js';
import type { Webhook } from './config.js';
import { createWebhookWorker, type WebhookWorker, type WebhookWorkerOptions } from './worker.js';

/** Webhooks out: the deliveries the brain records, and the worker a server runs. */
export interface WebhooksSection {
  /** Deliveries, newest first; `status: 'dead'` lists the dead letters. */
  deliveries(input?: ListDeliveriesInput): DeliveryRecord[];
  /** Queue a delivery (`whd_…`) again, now, its attempts counted afresh. */
  replay(id: string): DeliveryRecord;
  /** The worker that queues events and posts them to `hooks`. */
  worker(hooks: readonly Webhook[], options?: WebhookWorkerOptions): WebhookWorker;
}

export function webhooksSection(ctx: BrainContext): WebhooksSection {
  return {
    deliveries: (input) => listDeliveries(ctx, input),
    replay: (id) => replayDelivery(ctx, id),
    worker: (hooks, options) => createWebhookWorker(ctx, hooks, options),
  };
}
