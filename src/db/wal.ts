import { statSync } from 'node:fs';
import type { Database } from 'better-sqlite3';

/** Above this size the WAL is checkpointed and truncated by whichever process notices first. */
export const DEFAULT_WAL_LIMIT_BYTES = 16 * 1024 * 1024;

/** How long a truncating checkpoint may wait for readers before trying again later. */
const CHECKPOINT_WAIT_MS = 1000;

export interface WalKeeper {
  /** Look at the WAL after a call; checkpoint and truncate it when it has grown past the limit. */
  check(): void;
  /** Checkpoints run and how many found readers in the way (for tests and `brain doctor`). */
  stats(): { checkpoints: number; busy: number };
}

/**
 * SQLite's automatic checkpoint is passive: it copies what it can but never resets the WAL while
 * some reader still uses it. Under steady readers (agents polling) there always is one, and the
 * WAL grows without bound (hundreds of MB for a few thousand sends). So after each call we look
 * at the WAL's size, and past the limit run a TRUNCATE checkpoint, which waits briefly for the
 * readers of the moment to finish, copies every frame and empties the file.
 */
export function createWalKeeper(
  db: Database,
  path: string,
  limitBytes = DEFAULT_WAL_LIMIT_BYTES,
  busyTimeoutMs = 10_000,
): WalKeeper {
  const walPath = `${path}-wal`;
  const enabled = path !== ':memory:' && !db.readonly;
  let threshold = limitBytes;
  let checkpoints = 0;
  let busy = 0;
  return {
    check() {
      if (!enabled || !db.open || db.inTransaction) return;
      let size: number;
      try {
        size = statSync(walPath, { throwIfNoEntry: false })?.size ?? 0;
      } catch (err) {
        // Cannot look at the WAL (permissions): nothing to keep; SQLite's own checkpoint runs.
        size = err === undefined ? 1 : 0;
      }
      if (size <= threshold) return;
      db.pragma(`busy_timeout = ${CHECKPOINT_WAIT_MS}`);
      try {
        checkpoints += 1;
        let inTheWay: boolean;
        try {
          const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
          inTheWay = Boolean(result?.busy);
        } catch (err) {
          // The call this follows has already succeeded; a checkpoint that could not run (lock
          // held, disk trouble) must not turn it into a failure. It is retried later.
          inTheWay = err !== undefined;
        }
        if (inTheWay) {
          // A reader or another checkpointer was in the way: try again once the WAL has grown
          // a little more, rather than on every call.
          busy += 1;
          threshold = size + limitBytes / 4;
        } else {
          threshold = limitBytes;
        }
      } finally {
        db.pragma(`busy_timeout = ${busyTimeoutMs}`);
      }
    },
    stats: () => ({ checkpoints, busy }),
  };
}
