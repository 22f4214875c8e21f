import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reported, spawnWorker, type Worker } from '../../bench/workers.js';
import { openBrain } from '../../src/index.js';
import { tempDir } from '../helpers.js';

let dir: string;
let cleanup: () => void;
let pollers: Worker[] = [];
beforeEach(() => ({ dir, cleanup } = tempDir('brain-wal-')));
afterEach(async () => {
  for (const p of pollers) p.child.kill('SIGKILL');
  await Promise.all(pollers.map((p) => p.exited));
  pollers = [];
  cleanup();
});

/** One writer sends while four processes poll without pause; the largest WAL seen. */
async function writeUnderSteadyPollers(walLimit: number, count = 400): Promise<number> {
  const db = join(dir, 'brain.db');
  (await openBrain({ dbPath: db })).close();
  pollers = [0, 1, 2, 3].map((i) => spawnWorker(['poller', '--db', db, '--name', `poller-${i}`]));
  await Promise.all(pollers.map((p) => p.line('ready')));
  let max = 0;
  const sampler = setInterval(() => {
    max = Math.max(max, statSync(`${db}-wal`, { throwIfNoEntry: false })?.size ?? 0);
  }, 10);
  const writer = spawnWorker([
    ...['writer', '--db', db, '--name', 'writer', '--count', String(count), '--to', 'poller-0'],
    ...['--body-bytes', '1000', '--wal-limit', String(walLimit)],
  ]);
  const exit = await writer.exited;
  clearInterval(sampler);
  expect(exit, writer.stderr()).toBe(0);
  expect(reported(writer, 'sent')).toHaveLength(count);
  return Math.max(max, statSync(`${db}-wal`, { throwIfNoEntry: false })?.size ?? 0);
}

describe('the WAL under steady readers', () => {
  it('stays near its limit: writers checkpoint and truncate it', async () => {
    const max = await writeUnderSteadyPollers(1024 * 1024);
    expect(max).toBeLessThan(4 * 1024 * 1024);
  });

  it("grows far past it with SQLite's own passive checkpoints alone (why the keeper exists)", async () => {
    // SQLite's auto-checkpoint would reset a 4 MiB WAL if readers ever let it; they rarely do.
    // Twice the writes of the test above: a reset or two on a busy machine still leaves it far past.
    const max = await writeUnderSteadyPollers(0, 800); // 0: keeper off
    expect(max).toBeGreaterThan(6 * 1024 * 1024);
  });
});
