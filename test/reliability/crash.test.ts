import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCrashes } from '../../bench/crash.js';
import { tempDir } from '../helpers.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('brain-crash-')));
afterEach(() => cleanup());

describe('a writer killed with SIGKILL', () => {
  it('20 times at random moments: every write that returned survives, every check passes', async () => {
    const report = await runCrashes({ dir, kills: 20, seed: 20260101, maxDelayMs: 500 });
    expect(report.problems).toEqual([]);
    expect(report.kills).toBe(20);
    // Most kills land mid-stream, after writes returned (the rest land while it starts).
    expect(report.returned).toBeGreaterThan(200);
    expect(report.earlyKills).toBeLessThan(20);
  }, 60_000);
});
