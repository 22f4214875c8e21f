import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCrashes } from '../../bench/crash.js';
import { tempDir } from '../helpers.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('brain-crash-')));
afterEach(() => cleanup());

describe('a writer killed with SIGKILL', () => {
  // Five kills here; `npm run reliability` runs twenty.
  it('5 times at random moments: every write that returned survives, every check passes', async () => {
    const report = await runCrashes({ dir, kills: 5, seed: 20260101, maxDelayMs: 800 });
    expect(report.problems).toEqual([]);
    expect(report.kills).toBe(5);
    // Kills land mid-stream, after writes returned (some may land while it starts).
    expect(report.returned).toBeGreaterThan(0);
    expect(report.earlyKills).toBeLessThan(5);
  }, 60_000);
});
