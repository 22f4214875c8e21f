import { startIdleMaintenance } from '../../src/index.js';
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
