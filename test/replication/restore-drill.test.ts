import { afterAll, describe, expect, it } from 'vitest';
import { runRestoreDrill, type DrillResult, type Write } from '../../bench/restore-drill.js';
import { tempDir } from '../helpers.js';

/** Litestream's sync interval in the drill, and what may be lost beyond it on a busy machine. */
const SYNC_MS = 100;
const RPO_BOUND_MS = 1000;

/** Each writer's writes that a brain holds are the first of its writes, with no gap. */
function gaps(writes: readonly Write[], held: Set<string>): string[] {
  const found: string[] = [];
  const byWriter = new Map<string, Write[]>();
  for (const w of writes) byWriter.set(w.writer, [...(byWriter.get(w.writer) ?? []), w]);
  for (const [writer, own] of byWriter) {
    const kept = own.map((w) => held.has(w.body));
    const firstMissing = kept.indexOf(false);
    if (firstMissing >= 0 && kept.slice(firstMissing).some(Boolean))
      found.push(`${writer}: write ${firstMissing} missing but later ones held`);
  }
  return found;
}

describe('a brain replicated with Litestream, its machine lost mid-run', () => {
  const { dir, cleanup } = tempDir('brain-drill-');
  let drill: DrillResult;
  afterAll(cleanup);

  it('restores from the replica with every write acknowledged more than the sync interval before the loss', async () => {
    drill = await runRestoreDrill({
      dir,
      syncInterval: `${SYNC_MS}ms`,
      runMs: 2500,
      mcpWriters: 2,
      cliWriters: 1,
      pauseMs: 40,
    });
    const { latest, writes, lostAt } = drill;
    expect(latest.code, latest.stderr).toBe(0);
    expect(latest.stdout).toContain('every check passes');
    // Enough writes, from every writer, that the drill means something.
    expect(writes.length).toBeGreaterThan(30);
    expect(new Set(writes.map((w) => w.writer)).size).toBe(3);
    const old = writes.filter((w) => w.ackedAt <= lostAt - RPO_BOUND_MS);
    expect(old.length).toBeGreaterThan(0);
    expect(old.filter((w) => !latest.bodies.has(w.body)).map((w) => w.body)).toEqual([]);
    expect(drill.rpoMs).toBeLessThan(RPO_BOUND_MS);
    expect(gaps(writes, latest.bodies)).toEqual([]);
    process.stderr.write(
      `restore drill: ${writes.length} writes acknowledged, ${writes.filter((w) => !latest.bodies.has(w.body)).length} lost, RPO ${drill.rpoMs} ms at sync interval ${SYNC_MS} ms\n`,
    );
  }, 60_000);

  it('restores to a point in time with the writes before it and none after', () => {
    const { past, writes, pointInTime } = drill;
    expect(past.code, past.stderr).toBe(0);
    expect(past.stdout).toContain('every check passes');
    const after = writes.filter((w) => w.startedAt > pointInTime && past.bodies.has(w.body));
    expect(after.map((w) => w.body)).toEqual([]);
    const before = writes.filter((w) => w.ackedAt <= pointInTime - RPO_BOUND_MS);
    expect(before.length).toBeGreaterThan(0);
    expect(before.filter((w) => !past.bodies.has(w.body)).map((w) => w.body)).toEqual([]);
    expect(gaps(writes, past.bodies)).toEqual([]);
  });
});
