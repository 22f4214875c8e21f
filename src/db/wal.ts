import { statSync } from 'node:fs';
import type { Database } from 'better-sqlite3';
import { RUNAWAY_WAL_BYTES, replicatedByLitestream } from './litestream.js';
import { DEFAULT_BUSY_TIMEOUT_MS } from './open.js';

/** Above this size the WAL is checkpointed and started over by whichever process notices first. */
export const DEFAULT_WAL_LIMIT_BYTES = 16 * 1024 * 1024;

/** How long a checkpoint may wait for readers before trying again later. */
const CHECKPOINT_WAIT_MS = 1000;

export interface WalKeeper {
  /** Look at the WAL after a call; checkpoint it when it has grown past the limit. */
  check(): void;
}

/**
 * SQLite's automatic checkpoint is passive: it copies what it can but never resets the WAL while
 * some reader still uses it. Under steady readers (agents polling) there always is one, and the
 * WAL grows without bound (hundreds of MB for a few thousand sends). So after each call that
 * wrote, we look at the WAL's size, and past the limit run a RESTART checkpoint, which waits
 * briefly for the readers of the moment to finish and copies every frame, so that the next write
 * starts the WAL over from its first byte. The file is not emptied: writing over pages the file
 * already has costs a send about a fifth less than appending them to an emptied one (the kernel
 * finds each new page a block), and journal_size_limit cuts it back to the limit whenever it
 * starts over, so it stays within the limit and one write past it. While Litestream replicates the file, checkpoints are its job (src/db/litestream.ts), up to a
 * WAL so large that no one is evidently doing it.
 */
export function createWalKeeper(
  db: Database,
  path: string,
  limitBytes = DEFAULT_WAL_LIMIT_BYTES,
  busyTimeoutMs = DEFAULT_BUSY_TIMEOUT_MS,
): WalKeeper {
  const walPath = `${path}-wal`;
  const enabled = path !== ':memory:' && !db.readonly && Number.isFinite(limitBytes);
  let threshold = limitBytes;
  let changes = 0;
  const totalChanges = enabled ? db.prepare('SELECT total_changes()').pluck() : undefined;
  // SQLite's passive auto-checkpoint after each commit holds the checkpoint lock so often
  // under several writers that ours would almost never get it; this keeper replaces it.
  if (enabled) {
    db.pragma('wal_autocheckpoint = 0');
    db.pragma(`journal_size_limit = ${limitBytes}`);
  }
  return {
    check() {
      if (!totalChanges || !db.open || db.inTransaction) return;
      // Only a connection that has just written looks: pollers leave checkpoints to writers.
      const now = totalChanges.get() as number;
      if (now === changes) return;
      changes = now;
      let size: number;
      try {
        size = statSync(walPath, { throwIfNoEntry: false })?.size ?? 0;
      } catch {
        // Cannot look at the WAL (permissions): skip this time; the next write looks again.
        size = 0;
      }
      if (size <= limitBytes) threshold = limitBytes;
      if (size <= threshold) return;
      if (size < RUNAWAY_WAL_BYTES && replicatedByLitestream(db)) {
        threshold = RUNAWAY_WAL_BYTES;
        return;
      }
      db.pragma(`busy_timeout = ${CHECKPOINT_WAIT_MS}`);
      try {
        let inTheWay: boolean;
        try {
          const [result] = db.pragma('wal_checkpoint(RESTART)') as Array<{ busy: number }>;
          inTheWay = Boolean(result?.busy);
        } catch {
          // The call this follows has already succeeded; a checkpoint that could not run (lock
          // held, disk trouble) must not turn it into a failure. It is retried later.
          inTheWay = true;
        }
        if (inTheWay) {
          // A reader or another checkpointer was in the way: try again once the WAL has grown
          // a little more, rather than on every call.
          threshold = size + limitBytes / 4;
        } else {
          threshold = limitBytes;
        }
      } finally {
        db.pragma(`busy_timeout = ${busyTimeoutMs}`);
      }
    },
  };
}
