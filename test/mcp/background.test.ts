import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { statSync } from 'node:fs';
import { accessFlushTask, maintenanceTask, warmSearchTask } from '../../mcp/background.js';
import { connectionOf } from '../../src/brain.js';
import { IDLE_CHECKPOINT_BYTES } from '../../src/maintenance/idle.js';
import { silentLogger } from '../../mcp/log.js';
import { tempBrain, type TempBrain } from '../helpers.js';

let t: TempBrain;
let writer: BetterSqlite3.Database | undefined;
beforeEach(async () => {
  vi.useFakeTimers();
  t = await tempBrain();
});
afterEach(() => {
  vi.useRealTimers();
  writer?.close();
  writer = undefined;
  t.cleanup();
});

describe('the access-count flush of long-running servers', () => {
  it('writes noted accesses each interval, and waits for the next one while another process writes', async () => {
    const memory = t.brain.knowledge.remember({ agent: 'nova', content: 'spread gate' });
    const count = () => t.brain.knowledge.getStm(memory.id)!.access_count;
    const task = accessFlushTask(1_000)(t.brain, silentLogger);
    try {
      t.brain.search.search({ query: 'spread gate' });
      await vi.advanceTimersByTimeAsync(999);
      expect(count()).toBe(0);
      await vi.advanceTimersByTimeAsync(1);
      expect(count()).toBe(1);

      t.brain.search.search({ query: 'spread gate' });
      writer = new BetterSqlite3(t.path);
      writer.exec('BEGIN IMMEDIATE');
      await vi.advanceTimersByTimeAsync(1_000);
      expect(count()).toBe(1); // the lock was taken: kept for the next round
      writer.exec('COMMIT');
      await vi.advanceTimersByTimeAsync(1_000);
      expect(count()).toBe(2);

      t.brain.search.search({ query: 'spread gate' });
    } finally {
      await task.stop();
    }
    expect(count()).toBe(3); // stopping flushes what is left
    t.brain.search.search({ query: 'spread gate' });
    await vi.advanceTimersByTimeAsync(5_000);
    expect(count()).toBe(3); // and stops the timer
  });
});

describe('the idle upkeep of long-running servers', () => {
  it('empties a grown WAL at the next interval, and stops with the server', async () => {
    const wal = () => statSync(`${t.path}-wal`, { throwIfNoEntry: false })?.size ?? 0;
    const body = 'x'.repeat(100_000);
    const task = maintenanceTask(1_000)(t.brain, silentLogger);
    for (let i = 0; wal() < IDLE_CHECKPOINT_BYTES; i++)
      t.brain.messages.send({ from: 'helios', to: 'nova', body: `${i} ${body}` });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(wal()).toBe(0);

    await task.stop();
    for (let i = 0; wal() < IDLE_CHECKPOINT_BYTES; i++)
      t.brain.messages.send({ from: 'helios', to: 'nova', body: `${i} ${body}` });
    await vi.advanceTimersByTimeAsync(5_000);
    expect(wal()).toBeGreaterThanOrEqual(IDLE_CHECKPOINT_BYTES);
  });
});

describe('the search warm-up of long-running servers', () => {
  const censusTaken = () => {
    const db = new BetterSqlite3(t.path, { readonly: true });
    try {
      return (
        (db
          .prepare(`SELECT count(*) FROM search_word_counts WHERE idx = 'message' AND term = '='`)
          .pluck()
          .get() as number) > 0
      );
    } finally {
      db.close();
    }
  };

  it('warms the search once, a moment after the server starts, and not once stopped', async () => {
    for (let i = 0; i < 20; i++)
      t.brain.messages.send({ from: 'helios', to: 'nova', body: `kiln ${i}` });
    const task = warmSearchTask(1_000)(t.brain, silentLogger);
    await vi.advanceTimersByTimeAsync(999);
    expect(censusTaken()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(censusTaken()).toBe(true);
    await task.stop();

    const other = await t.reopen();
    const stopped = warmSearchTask(1_000)(other, silentLogger);
    await stopped.stop();
    other.messages.send({
      from: 'helios',
      to: 'nova',
      body: 'an edit moves the index to a new epoch',
    });
    connectionOf(other).prepare(`UPDATE messages SET body = 'glaze' WHERE id = 1`).run();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(censusTaken()).toBe(false); // the edit dropped the census; the stopped task took none
  });
});
