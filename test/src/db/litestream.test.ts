import { statSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { IDLE_CHECKPOINT_BYTES } from '../../../src/maintenance/idle.js';
import { tempBrain, type TempBrain } from '../../helpers.js';

let t: TempBrain;
afterEach(() => t?.cleanup());

const walBytes = () => statSync(`${t.path}-wal`, { throwIfNoEntry: false })?.size ?? 0;
const body = 'x'.repeat(200_000);

/** What Litestream makes in a database it starts replicating, from a connection of its own. */
function markReplicated(path: string): void {
  const db = new BetterSqlite3(path);
  try {
    db.exec(`CREATE TABLE _litestream_seq (id INTEGER PRIMARY KEY, seq INTEGER);
             CREATE TABLE _litestream_lock (id INTEGER);`);
  } finally {
    db.close();
  }
}

describe('checkpoints of a brain Litestream replicates', () => {
  it('the WAL keeper starts the WAL over past its limit when Litestream is not there', async () => {
    t = await tempBrain({ walLimitBytes: 1024 * 1024 });
    for (let i = 0; i < 12; i++)
      t.brain.messages.send({ from: 'a', to: 'b', body: `${i} ${body}` });
    // Checkpointed past the limit: the next write starts the WAL over, cut back to the limit.
    t.brain.messages.send({ from: 'a', to: 'b', body: 'small' });
    expect(walBytes()).toBeLessThanOrEqual(1024 * 1024);
  });

  it('the WAL keeper leaves the WAL to Litestream once its tables are in the file', async () => {
    t = await tempBrain({ walLimitBytes: 1024 * 1024 });
    markReplicated(t.path);
    for (let i = 0; i < 12; i++)
      t.brain.messages.send({ from: 'a', to: 'b', body: `${i} ${body}` });
    expect(walBytes()).toBeGreaterThan(2 * 1024 * 1024);
    expect(t.brain.upkeep.replication()).toEqual({ litestream: true, walBytes: walBytes() });
  });

  it('the idle maintainer does not checkpoint a replicated brain, and does one that is not', async () => {
    t = await tempBrain({ walLimitBytes: Number.POSITIVE_INFINITY });
    markReplicated(t.path);
    for (let i = 0; i < 30; i++)
      t.brain.messages.send({ from: 'a', to: 'b', body: `${i} ${body}` });
    const before = walBytes();
    expect(before).toBeGreaterThan(4 * 1024 * 1024);
    expect(t.brain.upkeep.maintain()).toMatchObject({ checkpointed: false });
    expect(walBytes()).toBe(before);
    t.cleanup();

    t = await tempBrain({ walLimitBytes: Number.POSITIVE_INFINITY });
    // SQLite's own passive checkpoint runs at 1,000 pages (about 4 MB) and the next writer starts
    // the WAL over, so a file grows past that only by a commit that crosses it: large ones here.
    const large = 'y'.repeat(900_000);
    for (let i = 0; i < 40 && walBytes() <= IDLE_CHECKPOINT_BYTES; i++)
      t.brain.messages.send({ from: 'a', to: 'b', body: `${i} ${large}` });
    expect(walBytes()).toBeGreaterThan(IDLE_CHECKPOINT_BYTES);
    expect(t.brain.upkeep.maintain()).toMatchObject({ checkpointed: true });
    expect(walBytes()).toBe(0);
    expect(t.brain.upkeep.replication()).toEqual({ litestream: false, walBytes: 0 });
  });

  it('forgets Litestream in a file it no longer replicates, and the keeper checkpoints again', async () => {
    t = await tempBrain({ walLimitBytes: 1024 * 1024 });
    markReplicated(t.path);
    expect(t.brain.upkeep.forgetLitestream()).toBe(true);
    expect(t.brain.upkeep.forgetLitestream()).toBe(false);
    for (let i = 0; i < 12; i++)
      t.brain.messages.send({ from: 'a', to: 'b', body: `${i} ${body}` });
    t.brain.messages.send({ from: 'a', to: 'b', body: 'small' });
    expect(walBytes()).toBeLessThanOrEqual(1024 * 1024);
    expect(t.brain.upkeep.replication().litestream).toBe(false);
  });
});
