import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MaintainResult } from '../../../src/index.js';
import { startIdleMaintenance } from '../../../src/maintenance/idle-timer.js';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

const done: MaintainResult = { merged: 0, pending: false, checkpointed: false, busy: false };

describe('the idle maintenance timer', () => {
  it('calls maintain once an interval with its step budget, and no more once stopped', async () => {
    const calls: unknown[] = [];
    const running = startIdleMaintenance(
      { maintain: (options) => (calls.push(options), done) },
      { intervalMs: 1_000, steps: 3 },
    );
    await vi.advanceTimersByTimeAsync(999);
    expect(calls).toEqual([]);
    await vi.advanceTimersByTimeAsync(2_001);
    expect(calls).toEqual([{ steps: 3 }, { steps: 3 }, { steps: 3 }]);
    running.stop();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(calls).toHaveLength(3);
  });

  it('tells the first failure of a run of them, keeps going, and tells the next run again', async () => {
    const outcomes = ['fail', 'fail', 'ok', 'fail'];
    const told: string[] = [];
    let round = 0;
    const running = startIdleMaintenance(
      {
        maintain: () => {
          if (outcomes[round++] === 'fail') throw new Error(`round ${round}`);
          return done;
        },
      },
      { intervalMs: 1_000, onError: (err) => told.push(err.message) },
    );
    await vi.advanceTimersByTimeAsync(4_000);
    running.stop();
    expect(round).toBe(4);
    expect(told).toEqual(['round 1', 'round 4']);
  });
});
