import type { AccessNotes, BrainContext } from '../context.js';
import { writeWithoutWaiting } from '../db/no-wait.js';

/*
 * Access counts of memories (`stm.access_count`, `last_accessed_at`): how often a search or a
 * listing returned each one. Nothing ranks by them; they are shown, exported, and brought in from
 * Cortex. Counting must never make a read wait for a writer, nor fail because of one, so a read
 * only notes the rows here, in memory; the notes are written later, in one short transaction
 * that never waits for the lock (`flushAccesses`):
 * - long-running processes (`brain mcp`, `brain serve`) flush every few seconds and on shutdown;
 *   a flush that finds the lock taken keeps the notes for the next one;
 * - every brain flushes once more as it closes: what a one-shot command (`brain search`,
 *   `brain memories`) noted is written then, or dropped if another process holds the lock.
 * So counts are best-effort: a record's `access_count` is what has been written, without the
 * accesses still in memory (this one included).
 */

/** Rows whose accesses are noted but not yet written, and so at most this many are kept. */
export const MAX_NOTED_ROWS = 10_000;

export function createAccessNotes(): AccessNotes {
  return new Map();
}

/** Note one access of each of these STM rows. No SQL: reads call this. */
export function noteAccess(ctx: BrainContext, rowids: number[]): void {
  if (rowids.length === 0 || ctx.db.readonly) return;
  const now = ctx.clock().getTime();
  for (const id of rowids) {
    const noted = ctx.accesses.get(id);
    if (noted) {
      noted.count += 1;
      noted.lastMs = now;
    } else if (ctx.accesses.size < MAX_NOTED_ROWS) {
      ctx.accesses.set(id, { count: 1, lastMs: now });
    }
  }
}

/**
 * Write the noted accesses in one transaction, without waiting: true when nothing remains noted,
 * false when another writer holds the lock or the disk takes no writes (the notes are kept).
 */
export function flushAccesses(ctx: BrainContext): boolean {
  if (ctx.accesses.size === 0) return true;
  if (ctx.db.readonly) {
    ctx.accesses.clear();
    return true;
  }
  const notes = [...ctx.accesses];
  const update = ctx.q.get(
    `UPDATE stm SET access_count = access_count + ?,
            last_accessed_at = max(coalesce(last_accessed_at, 0), ?)
     WHERE id = ?`,
  );
  const written = writeWithoutWaiting(ctx.db, () =>
    ctx.db
      .transaction(() => {
        for (const [id, n] of notes) update.run(n.count, n.lastMs, id);
      })
      .immediate(),
  );
  if (written) ctx.accesses.clear(); // nothing can note meanwhile: the write is synchronous
  return written;
}
