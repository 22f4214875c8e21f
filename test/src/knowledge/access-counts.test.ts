import { connectionOf } from '../../../src/brain.js';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_NOTED_ROWS, noteAccess } from '../../../src/knowledge/access-counts.js';
import { openContext } from '../../../src/brain.js';
import { wordEmbedder } from '../../embedders.js';
import { fixedClock, tempBrain, type TempBrain } from '../../helpers.js';

/*
 * Reads never take the write lock (issue 12): a search or listing that returns memories notes
 * their accesses in memory, and a flush writes them later without waiting. The writer here is a
 * second real connection to the file holding BEGIN IMMEDIATE, as another process would.
 */

/** Well below the 10 s busy timeout a read that queued for the lock would wait. */
const PROMPT_MS = 1_000;

let t: TempBrain;
let clock: ReturnType<typeof fixedClock>;
let writer: BetterSqlite3.Database | undefined;
beforeEach(async () => {
  clock = fixedClock();
  t = await tempBrain({ clock });
});
afterEach(() => {
  writer?.close();
  writer = undefined;
  t.cleanup();
});

/** Another connection takes the write lock and keeps it until released. */
function holdWriteLock(): () => void {
  writer = new BetterSqlite3(t.path);
  writer.exec('BEGIN IMMEDIATE');
  return () => writer!.exec('COMMIT');
}

function timed<T>(fn: () => T): { value: T; ms: number } {
  const started = performance.now();
  const value = fn();
  return { value, ms: performance.now() - started };
}

/** The stored count and last access (kept as integer ms since migration 0009), the time as ISO. */
function stored(id: string): { access_count: number; last_accessed_at: string | null } {
  const row = connectionOf(t.brain)
    .prepare(`SELECT access_count, last_accessed_at FROM stm WHERE uid = ?`)
    .get(id) as { access_count: number; last_accessed_at: number | null };
  const at = row.last_accessed_at;
  return { ...row, last_accessed_at: at === null ? null : new Date(at).toISOString() };
}

describe('access counts off the read path', () => {
  it('a search and a listing that return a memory answer at once while another connection holds the write lock', async () => {
    const memory = t.brain.knowledge.remember({
      agent: 'nova',
      content: 'the spread gate predicts nothing',
    });
    const release = holdWriteLock();

    const search = timed(() => t.brain.search.search({ query: 'spread gate' }));
    expect(search.value.hits.map((h) => h.id)).toEqual([memory.id]);
    expect(search.ms).toBeLessThan(PROMPT_MS);
    const list = timed(() => t.brain.knowledge.listStm());
    expect(list.value.map((s) => s.id)).toEqual([memory.id]);
    expect(list.ms).toBeLessThan(PROMPT_MS);
    const started = performance.now();
    const hybrid = await t.brain.search.searchHybrid(
      { query: 'spread gate' },
      { embedder: wordEmbedder(['spread']) },
    );
    expect(hybrid.hits.map((h) => h.id)).toEqual([memory.id]);
    expect(performance.now() - started).toBeLessThan(PROMPT_MS);

    // The flush does not wait either: the lock is taken, so the accesses stay noted.
    const flush = timed(() => t.brain.upkeep.flushAccesses());
    expect(flush.value).toBe(false);
    expect(flush.ms).toBeLessThan(PROMPT_MS);
    expect(stored(memory.id).access_count).toBe(0);

    release();
    expect(t.brain.upkeep.flushAccesses()).toBe(true);
    expect(stored(memory.id)).toEqual({
      access_count: 3,
      last_accessed_at: '2026-01-01T00:00:00.000Z',
    });
  });

  it('writes the accesses of many reads in one flush, with the time of the latest', () => {
    const a = t.brain.knowledge.remember({ agent: 'nova', content: 'spread gate one' });
    const b = t.brain.knowledge.remember({ agent: 'nova', content: 'spread gate two' });
    for (let i = 0; i < 4; i += 1) {
      clock.tick(60_000);
      t.brain.search.search({ query: 'spread gate', limit: i < 3 ? 2 : 1 });
    }
    const changes = connectionOf(t.brain).prepare('SELECT total_changes()').pluck();
    const before = changes.get() as number;
    expect(t.brain.upkeep.flushAccesses()).toBe(true);
    expect((changes.get() as number) - before).toBe(2); // one row each, in one transaction
    const counts = [stored(a.id).access_count, stored(b.id).access_count].sort();
    expect(counts).toEqual([3, 4]);
    expect(stored(a.id).last_accessed_at! > '2026-01-01T00:02').toBe(true);
    expect(t.brain.upkeep.flushAccesses()).toBe(true); // nothing left: nothing written twice
    expect([stored(a.id).access_count, stored(b.id).access_count].sort()).toEqual([3, 4]);
  });

  it('a read changes nothing in the file; the flush does', async () => {
    t.brain.knowledge.remember({ agent: 'nova', content: 'spread gate' });
    const other = await t.reopen();
    const seen = connectionOf(other).pragma('data_version', { simple: true });
    t.brain.search.search({ query: 'spread gate' });
    t.brain.knowledge.listStm();
    expect(connectionOf(other).pragma('data_version', { simple: true })).toBe(seen);
    t.brain.upkeep.flushAccesses();
    expect(connectionOf(other).pragma('data_version', { simple: true })).not.toBe(seen);
  });

  it('closing writes what is noted, without waiting; with the lock held they are dropped', async () => {
    const memory = t.brain.knowledge.remember({ agent: 'nova', content: 'spread gate' });
    const first = await t.reopen();
    first.search.search({ query: 'spread gate' });
    first.close();
    expect(stored(memory.id).access_count).toBe(1);

    const second = await t.reopen();
    second.search.search({ query: 'spread gate' });
    const release = holdWriteLock();
    const closing = timed(() => second.close());
    expect(closing.ms).toBeLessThan(PROMPT_MS);
    release();
    expect(stored(memory.id).access_count).toBe(1);
  });

  it('keeps at most a bounded number of rows noted', () => {
    const { ctx } = openContext({ dbPath: t.path });
    try {
      noteAccess(
        ctx,
        Array.from({ length: MAX_NOTED_ROWS + 5 }, (_, i) => i + 1),
      );
      noteAccess(ctx, [1]);
      expect(ctx.accesses.size).toBe(MAX_NOTED_ROWS);
      expect(ctx.accesses.get(1)!.count).toBe(2);
    } finally {
      ctx.db.close();
    }
  });
});
