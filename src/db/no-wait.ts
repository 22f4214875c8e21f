import type { Database } from 'better-sqlite3';
import { storageFailureCode } from './storage-errors.js';

/** Why a write that must not wait was not made: another writer, or a disk that takes no writes. */
const GIVE_UP = new Set(['SQLITE_BUSY', 'SQLITE_READONLY', 'SQLITE_FULL']);

/**
 * Make a bookkeeping write (access counts, an agent's last-seen time) only if it can be made at
 * once: busy_timeout is 0 for its duration, so when another connection holds the write lock it
 * fails immediately instead of queueing. True when it was written; false when the lock was taken,
 * the database is read-only or the disk is full (the caller may try again later). Other failures
 * are thrown. Never call it inside a transaction: it would only add to that one.
 */
export function writeWithoutWaiting(db: Database, write: () => void): boolean {
  if (db.readonly || !db.open) return false;
  const waitMs = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma('busy_timeout = 0');
  try {
    write();
    return true;
  } catch (err) {
    const code = storageFailureCode(err);
    if (code && GIVE_UP.has(code)) return false;
    throw err;
  } finally {
    db.pragma(`busy_timeout = ${waitMs}`);
  }
}
