import { BrainError } from '../errors.js';

/**
 * What each SQLite failure means for the person running brain. Keyed by primary result code
 * (`SQLITE_IOERR_WRITE` → `SQLITE_IOERR`). None of these messages echo data or SQL.
 */
const MEANINGS: Record<string, string> = {
  SQLITE_FULL:
    'the disk is full (or the database reached its size limit); free some space and retry',
  SQLITE_READONLY: 'the database is read-only: the file, its folder or its disk cannot be written',
  SQLITE_CANTOPEN:
    'the database file (or its -wal/-shm companion) cannot be opened or created: check that its folder exists and is writable, not on a read-only disk',
  SQLITE_PERM: 'permission denied on the database file',
  SQLITE_BUSY:
    'another process kept the database locked longer than the busy timeout; retry, and look for a stuck process',
  SQLITE_LOCKED: 'the database is locked by this process (a statement is still running)',
  SQLITE_CORRUPT: 'the database file is damaged; run `brain doctor` (and `brain doctor --repair`)',
  SQLITE_NOTADB: 'the file is not an SQLite database',
  SQLITE_IOERR: 'the disk reported an I/O error',
  SQLITE_NOMEM: 'SQLite ran out of memory',
  SQLITE_PROTOCOL: 'the database locking protocol failed (is it on a network file system?)',
};

/** The SQLite result code of an error thrown by better-sqlite3, if it is one. */
export function sqliteCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : undefined;
}

/** `SQLITE_IOERR_WRITE` → `SQLITE_IOERR`. */
export function primaryCode(code: string): string {
  return code.split('_').slice(0, 2).join('_');
}

/** "the disk is full … (SQLITE_FULL)": what an SQLite failure means, or undefined for other errors. */
export function describeStorageFailure(err: unknown): string | undefined {
  const code = sqliteCode(err);
  if (!code) return undefined;
  return `${MEANINGS[primaryCode(code)] ?? (err as Error).message} (${code})`;
}

/**
 * Translate an SQLite failure into a BrainError that says what happened to which file, in
 * words; anything else is returned unchanged. Writes run in transactions, so a failed write
 * left the database as it was, and the message says so.
 */
export function toStorageError(err: unknown, path: string): unknown {
  const code = sqliteCode(err);
  if (!code) return err;
  const primary = primaryCode(code);
  if (primary === 'SQLITE_CONSTRAINT') {
    return new BrainError('CONFLICT', `${path}: ${(err as Error).message} (${code})`, {
      cause: err,
    });
  }
  if (primary === 'SQLITE_NOTADB') {
    return new BrainError('NOT_A_BRAIN', `${path} is not a brain database (not an SQLite file)`, {
      cause: err,
    });
  }
  const unchanged = primary === 'SQLITE_CORRUPT' ? '' : '; nothing was changed';
  return new BrainError('STORAGE_FAILED', `${path}: ${describeStorageFailure(err)}${unchanged}`, {
    cause: err,
  });
}

/** The primary SQLite code behind a storage BrainError (or a raw SQLite error), if any. */
export function storageFailureCode(err: unknown): string | undefined {
  const code = sqliteCode(err) ?? sqliteCode((err as { cause?: unknown } | null)?.cause);
  return code && primaryCode(code);
}
