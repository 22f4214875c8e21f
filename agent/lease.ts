import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Brain } from '../src/index.js';
import type { Log } from './log.js';
import { sleep } from './sleep.js';

/** How long a turn's lease lasts unrenewed, how often it is renewed, how often a waiter retries. */
export const LEASE_TTL_MS = 60_000;
export const LEASE_RENEW_MS = 20_000;
export const LEASE_RETRY_MS = 250;

export interface HeldLease {
  /** Stop renewing and give the lease back. */
  release(): void;
}

/**
 * Take the session's turn lease, waiting (by the timer, so fake timers drive it) while another
 * turn holds it; renewed while held. Rejects with the signal's reason when cancelled while waiting.
 */
export async function acquireTurnLease(
  brain: Brain,
  key: string,
  options: { label: string; signal?: AbortSignal; log: Log },
): Promise<HeldLease> {
  // Each turn its own holder: two turns of one session in one process wait for each other too.
  const holder = {
    pid: process.pid,
    host: hostname(),
    label: `${options.label} ${randomUUID().slice(0, 8)}`,
  };
  let waited = false;
  while (!brain.assistant.acquireLease({ key, holder, ttl_ms: LEASE_TTL_MS })) {
    // Said where the user sees it: their turn waits for another one of this session.
    if (!waited) options.log('warn', 'turn.wait_lease', { key });
    waited = true;
    await sleep(LEASE_RETRY_MS, options.signal);
  }
  const timer = setInterval(() => {
    try {
      if (!brain.assistant.renewLease({ key, holder, ttl_ms: LEASE_TTL_MS }))
        options.log('warn', 'turn.lease_lost', { key });
    } catch (err) {
      options.log('warn', 'turn.lease_renew_failed', { key, error: (err as Error).message });
    }
  }, LEASE_RENEW_MS);
  timer.unref();
  return {
    release() {
      clearInterval(timer);
      brain.assistant.releaseLease({ key, holder });
    },
  };
}
