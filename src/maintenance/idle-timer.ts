import type { MaintainOptions, MaintainResult } from './idle.js';
import type { RetentionPolicy } from './retention.js';

/** How often a long-running process does its idle upkeep (`brain.upkeep.maintain`). */
export const MAINTAIN_INTERVAL_MS = 2_000;

export interface IdleMaintenanceOptions {
  intervalMs?: number;
  /** Merge steps per round (see `MaintainOptions.steps`). */
  steps?: number;
  /** Archive and close idle threads by this policy (retention.ts). */
  retention?: RetentionPolicy | undefined;
  /**
   * A round failed (a damaged file, a closed brain): called for the first failure of a run of
   * them, not every round; the next round tries again.
   */
  onError?: (err: Error) => void;
}

/**
 * Call `upkeep.maintain` (a brain's `upkeep` section) every `intervalMs` until stopped. The timer is unref'd: it never keeps a
 * process up. Between rounds the process serves its requests; a round never waits for a lock.
 */
export function startIdleMaintenance(
  upkeep: { maintain(options?: MaintainOptions): MaintainResult },
  options: IdleMaintenanceOptions = {},
): { stop(): void } {
  let failing = false;
  const round = () => {
    try {
      upkeep.maintain({
        ...(options.steps === undefined ? {} : { steps: options.steps }),
        retention: options.retention,
      });
      failing = false;
    } catch (err) {
      // Upkeep can wait: the process goes on serving; the failure is told once, not each round.
      if (!failing) options.onError?.(err as Error);
      failing = true;
    }
  };
  const timer = setInterval(round, options.intervalMs ?? MAINTAIN_INTERVAL_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
