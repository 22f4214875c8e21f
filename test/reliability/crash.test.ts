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
    const report = await runCrashes({
      dir,
      kills: 5,
      seed: 20260101,
      maxDelayMs: 300,
      afterFirstSend: true,
    });
    expect(report.problems).toEqual([]);
    expect(report.kills).toBe(5);
    // Every kill lands mid-stream, after writes returned.
    expect(report.earlyKills).toBe(0);
    expect(report.returned).toBeGreaterThanOrEqual(5);
  }, 60_000);
});
