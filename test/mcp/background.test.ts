import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { accessFlushTask } from '../../mcp/background.js';
import { silentLogger } from '../../mcp/log.js';
import { tempBrain, type TempBrain } from '../helpers.js';

let t: TempBrain;
let writer: BetterSqlite3.Database | undefined;
beforeEach(() => {
  vi.useFakeTimers();
  t = tempBrain();
});
afterEach(() => {
  vi.useRealTimers();
  writer?.close();
  writer = undefined;
  t.cleanup();
});

describe('the access-count flush of long-running servers', () => {
  it('writes noted accesses each interval, and waits for the next one while another process writes', async () => {
    const memory = t.brain.remember({ agent: 'nova', content: 'spread gate' });
    const count = () => t.brain.getStm(memory.id)!.access_count;
    const task = accessFlushTask(1_000)(t.brain, silentLogger);
    try {
      t.brain.search({ query: 'spread gate' });
      await vi.advanceTimersByTimeAsync(999);
      expect(count()).toBe(0);
      await vi.advanceTimersByTimeAsync(1);
      expect(count()).toBe(1);

      t.brain.search({ query: 'spread gate' });
      writer = new BetterSqlite3(t.path);
      writer.exec('BEGIN IMMEDIATE');
      await vi.advanceTimersByTimeAsync(1_000);
      expect(count()).toBe(1); // the lock was taken: kept for the next round
      writer.exec('COMMIT');
      await vi.advanceTimersByTimeAsync(1_000);
      expect(count()).toBe(2);

      t.brain.search({ query: 'spread gate' });
    } finally {
      await task.stop();
    }
    expect(count()).toBe(3); // stopping flushes what is left
    t.brain.search({ query: 'spread gate' });
    await vi.advanceTimersByTimeAsync(5_000);
    expect(count()).toBe(3); // and stops the timer
  });
});
