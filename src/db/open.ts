import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { Database, Statement } from 'better-sqlite3';
import { BrainError } from '../errors.js';
import { registerIndexText } from './index-text.js';
import { inspectDatabase, migrate } from './migrate.js';
import { loadRankExtension } from './rank-extension.js';
import { describeStorageFailure } from './storage-errors.js';

/**
 * `normal` (synchronous=NORMAL): a process crash loses nothing that returned; a power cut or OS
 * crash may lose the last transactions, never corrupts. `full` (synchronous=FULL): each commit is
 * synced to disk before it returns, so even a power cut loses nothing that returned.
 */
export type Durability = 'normal' | 'full';
export const DURABILITIES = ['normal', 'full'] as const;

export interface OpenOptions {
  readonly?: boolean;
  /** How long a writer waits for the lock before SQLITE_BUSY; generous, since many processes share a file. */
  busyTimeoutMs?: number;
  durability?: Durability;
  /**
   * Load the compiled ranking function when it was built (default true). Without it FTS5's own
   * bm25() ranks: slower on words held by many rows, and in another order at times when a word
   * is held by that many (src/db/rank-extension.ts).
   */
  rankFunction?: boolean;
  /**
   * Make a brain when there is none (default true): the file, its folder and the schema. False:
   * a missing file is NOT_FOUND and an empty one is not made a brain, so a command that only
   * reads never leaves a brain behind where a mistyped path pointed.
   */
  create?: boolean;
  /** Called once this open has made a new brain (the schema, from nothing), after it is made. */
  onCreated?: () => void;
  /**
   * sqlite-vec, for a connection whose work reads or writes vectors; without it the vector index
   * cannot be used. The caller loads the module: a one-shot command that never touches vectors
   * (`brain poll`, `brain send`) saves its load, and no trigger or migration uses the index.
   */
  vectors?: VectorExtension;
}

/** What sqlite-vec's module offers that an open needs. */
export interface VectorExtension {
  load(db: Database): void;
}

export const DEFAULT_BUSY_TIMEOUT_MS = 10_000;

/** How much of a brain's file is read through a memory map (the rest through reads). */
export const MMAP_BYTES = 1024 * 1024 * 1024;

/**
 * Open (creating if needed and allowed) a brain database: busy_timeout first, then a look at
 * what the file is (a foreign database is refused before anything is written to it), WAL,
 * synchronous, foreign keys, sqlite-vec when given, the ranking function, and migrations.
 */
export function openDatabase(path: string, options: OpenOptions = {}): Database {
  const readonly = options.readonly ?? false;
  const create = !readonly && (options.create ?? true);
  if (path !== ':memory:') prepareLocation(path, create);
  let db: Database;
  try {
    db = new BetterSqlite3(path, { readonly, fileMustExist: !create });
  } catch (err) {
    throw new BrainError('STORAGE_FAILED', `cannot open ${path}: ${describe(err)}`, {
      cause: err,
    });
  }
  try {
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS}`);
    // An empty file (one a crash or a `touch` left) is no brain either when none may be made.
    if (inspectDatabase(db, path).empty && !create && path !== ':memory:')
      throw new BrainError('NOT_FOUND', `no brain database at ${path} (the file is empty)`);
    if (!readonly) {
      const mode = db.pragma('journal_mode', { simple: true });
      if (mode !== 'wal' && path !== ':memory:') db.pragma('journal_mode = WAL');
    }
    db.pragma(`synchronous = ${options.durability === 'full' ? 'FULL' : 'NORMAL'}`);
    db.pragma('foreign_keys = ON');
    // Pages read through a memory map of the file, not copied into a private cache: at a million
    // messages a search walks more of the word index than SQLite's 2 MB cache holds, and each
    // page read again would cost a copy (bench/HISTORY.md has the figures). The map is address
    // space, not memory; SQLite remaps when it changes the file's size itself.
    if (path !== ':memory:') db.pragma(`mmap_size = ${MMAP_BYTES}`);
    options.vectors?.load(db);
    if (options.rankFunction ?? true) loadRankExtension(db);
    registerIndexText(db);
    if (!readonly && migrate(db, path).from === 0) options.onCreated?.();
    return db;
  } catch (err) {
    db.close();
    if (err instanceof BrainError) throw err;
    if ((err as { code?: string }).code === 'SQLITE_NOTADB') {
      throw new BrainError('NOT_A_BRAIN', `${path} is not a brain database (not an SQLite file)`, {
        cause: err,
      });
    }
    throw new BrainError('STORAGE_FAILED', `cannot open ${path}: ${describe(err)}`, {
      cause: err,
    });
  }
}

function describe(err: unknown): string {
  return describeStorageFailure(err) ?? (err as Error).message;
}

function prepareLocation(path: string, create: boolean): void {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat?.isDirectory())
    throw new BrainError('INVALID_INPUT', `--db: ${path} is a directory, not a database file`);
  // A device or FIFO (/dev/null, /dev/zero …) would be "opened" and written beside.
  if (stat && !stat.isFile())
    throw new BrainError('INVALID_INPUT', `--db: ${path} is not a regular file`);
  if (!stat && !create) throw new BrainError('NOT_FOUND', `no brain database at ${path}`);
  if (!stat) {
    try {
      mkdirSync(dirname(path), { recursive: true });
    } catch (err) {
      throw new BrainError(
        'STORAGE_FAILED',
        `cannot create the folder for ${path}: ${(err as Error).message}`,
        {
          cause: err,
        },
      );
    }
  }
}

/** Statements prepared once per open database, keyed by their SQL. */
export class StatementCache {
  private readonly cache = new Map<string, Statement>();

  constructor(readonly db: Database) {}

  get<P extends unknown[] = unknown[], R = unknown>(sql: string): Statement<P, R> {
    let stmt = this.cache.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.cache.set(sql, stmt);
    }
    return stmt as Statement<P, R>;
  }
}
