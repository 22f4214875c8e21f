import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reported, spawnWorker } from '../../bench/workers.js';
import { runStress } from '../../bench/stress.js';
import { openBrain } from '../../src/index.js';
import { tempDir } from '../helpers.js';
import { join } from 'node:path';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('brain-stress-')));
afterEach(() => cleanup());

// Small sizes, so `npm test` stays under 3 minutes: the full runs (4 × 2,500 sends; 20 crashes)
// are `npm run reliability`.
describe('many processes on one file', () => {
  it('4 writer and 4 reader processes through the library: nothing lost, each read once', async () => {
    const report = await runStress({ dir, writers: 4, readers: 4, perWriter: 50, via: 'library' });
    expect(report.problems).toEqual([]);
    expect(report.sent).toBe(200);
    // Every 10th send is a broadcast: 20 reach all 4 readers; the other 180 go to one each.
    expect(report.reads).toBe(180 + 20 * 4);
    expect(report.doctor.ok).toBe(true);
    expect(report.doctor.checks.map((c) => c.name)).toEqual(
      expect.arrayContaining(['integrity', 'fts', 'thread_counters', 'deliveries']),
    );
  });

  it('3 writer and 3 reader processes through the CLI: nothing lost, each read once', async () => {
    const report = await runStress({
      dir,
      writers: 3,
      readers: 3,
      perWriter: 4,
      broadcastEvery: 2,
      via: 'cli',
    });
    expect(report.problems).toEqual([]);
    expect(report.sent).toBe(12);
    // Every 2nd send is a broadcast: 6 reach all 3 readers, the other 6 one each.
    expect(report.reads).toBe(6 + 6 * 3);
  }, 60_000);

  it('3 writer and 3 reader `brain mcp` processes: nothing lost, each read once', async () => {
    const report = await runStress({ dir, writers: 3, readers: 3, perWriter: 10, via: 'mcp' });
    expect(report.problems).toEqual([]);
    expect(report.sent).toBe(30);
    // The 10th message of each writer is a broadcast to all 3 readers.
    expect(report.reads).toBe(3 * (9 + 1 * 3));
    expect(report.doctor.ok).toBe(true);
  }, 60_000);

  it('8 processes creating the same new file at once all open it, migrated once', async () => {
    const db = join(dir, 'fresh', 'brain.db');
    const writers = Array.from({ length: 8 }, (_, i) =>
      spawnWorker(['writer', '--db', db, '--name', `w${i}`, '--count', '5', '--to', 'hub']),
    );
    const exits = await Promise.all(writers.map((w) => w.exited));
    expect(exits, writers.map((w) => w.stderr()).join('')).toEqual(Array(8).fill(0));
    const brain = await openBrain({ dbPath: db });
    expect(brain.messages.poll('hub').unread).toBe(40);
    const sent = writers.flatMap((w) => reported(w, 'sent'));
    expect(sent.every((id) => brain.messages.getMessage(id) !== undefined)).toBe(true);
    expect((await brain.upkeep.doctor()).ok).toBe(true);
    brain.close();
  });
});
