import type { BrainContext } from '../context.js';
import type { Webhook } from './config.js';
import { claimDue, queueEvents, recordAttempt } from './deliveries.js';
import { SIGNATURE_HEADER, signPayload } from './signature.js';

export interface WebhookWorkerOptions {
  /** The HTTP client (tests may count its calls); default the global fetch. */
  fetch?: typeof fetch;
  /** The wait after a first failure, doubled after each further one up to `maxDelayMs`. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** How long a receiver has to answer one POST. */
  timeoutMs?: number;
  /** How often `start` looks for events and due deliveries. */
  intervalMs?: number;
  /** Told of a failed attempt: the hook's name and why, never its secret nor the payload. */
  onFailure?: (hook: string, reason: string) => void;
}

export interface TickResult {
  queued: number;
  delivered: number;
  failed: number;
}

export interface WebhookWorker {
  /** Queue the events since the last look and post what is due: what `start` does each interval. */
  tick(): Promise<TickResult>;
  /** Tick every `intervalMs` until stopped; the timer never keeps the process up. */
  start(): void;
  /** Stop ticking and wait for a tick under way. */
  stop(): Promise<void>;
}

export const WEBHOOK_INTERVAL_MS = 100;
const DUE_PER_TICK = 50;
/** A claimed delivery is another server's to take again this long after its POST timed out. */
const LEASE_MARGIN_MS = 5_000;

/** The wait before attempt `attempts + 1`, after `attempts` failures. */
export function backoffMs(attempts: number, baseMs: number, maxMs: number): number {
  return Math.min(baseMs * 2 ** Math.max(0, attempts - 1), maxMs);
}

/**
 * The worker of a long-running server (`brain serve`, `brain agent`): sends never wait on it, as
 * they only add rows it notices later. Each POST is signed (signature.ts), follows no redirect,
 * and counts as delivered on a 2xx answer alone.
 */
export function createWebhookWorker(
  ctx: BrainContext,
  hooks: readonly Webhook[],
  options: WebhookWorkerOptions = {},
): WebhookWorker {
  const post = options.fetch ?? fetch;
  const baseMs = options.baseDelayMs ?? 1_000;
  const maxMs = options.maxDelayMs ?? 3_600_000;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const byName = new Map(hooks.map((h) => [h.name, h]));
  let running: Promise<TickResult> | undefined;
  let timer: NodeJS.Timeout | undefined;

  async function attempt(d: { rowid: number; hook: string; payload: string; attempts: number }) {
    // Claimed among this worker's hooks only: it is there.
    const hook = byName.get(d.hook)!;
    let code: number | null = null;
    let error: string | null = null;
    try {
      const seconds = Math.floor(ctx.clock().getTime() / 1000);
      const response = await post(hook.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'brain-webhooks',
          [SIGNATURE_HEADER]: signPayload(hook.secret, d.payload, seconds),
          'brain-delivery': `whd_${d.rowid}`,
        },
        body: d.payload,
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
      code = response.status;
      // The answer's body is not read beyond what closing needs: it says nothing we keep.
      await response.body?.cancel();
      if (code >= 200 && code < 300) {
        recordAttempt(ctx, d.rowid, { ok: true, code, error: null, retryAt: null });
        return true;
      }
      error = `HTTP ${code}`;
    } catch (err) {
      error = (err as Error).name === 'TimeoutError' ? 'timed out' : (err as Error).message;
    }
    const failures = d.attempts + 1;
    const retryAt =
      failures >= hook.maxAttempts
        ? null
        : ctx.clock().getTime() + backoffMs(failures, baseMs, maxMs);
    recordAttempt(ctx, d.rowid, { ok: false, code, error, retryAt });
    options.onFailure?.(hook.name, `${error}${retryAt === null ? ' (dead letter)' : ''}`);
    return false;
  }

  const changes = ctx.db.prepare(
    'SELECT (SELECT data_version FROM pragma_data_version) AS v, total_changes() AS c',
  );
  let seen = '';
  const names = hooks.map((h) => h.name);

  async function runTick(): Promise<TickResult> {
    // Nothing committed since the last look (by this connection or another): no event to queue.
    const row = changes.get() as { v: number; c: number };
    const version = `${row.v}:${row.c}`;
    const queued = version === seen ? 0 : queueEvents(ctx, hooks);
    seen = version === seen ? seen : `${row.v}:${(changes.get() as { c: number }).c}`;
    const due = claimDue(ctx, names, DUE_PER_TICK, timeoutMs + LEASE_MARGIN_MS);
    const results = await Promise.all(due.map(attempt));
    const delivered = results.filter(Boolean).length;
    return { queued, delivered, failed: results.length - delivered };
  }

  const tick = (): Promise<TickResult> => {
    // One tick at a time: a slow receiver must not have its delivery posted twice.
    running ??= runTick().finally(() => (running = undefined));
    return running;
  };

  return {
    tick,
    start() {
      if (timer || hooks.length === 0) return;
      timer = setInterval(() => {
        if (!ctx.db.open) return;
        tick().catch((err: unknown) => options.onFailure?.('*', (err as Error).message));
      }, options.intervalMs ?? WEBHOOK_INTERVAL_MS);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await running?.catch(() => undefined);
    },
  };
}
