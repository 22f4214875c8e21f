import { systemClock, type Clock } from './clock.js';
import type { BrainContext } from './context.js';
import { StatementCache, openDatabase, type Durability } from './db/open.js';
import { createWalKeeper, type WalKeeper } from './db/wal.js';
import { createAccessNotes } from './knowledge/access-counts.js';
import { createRankCaches } from './search/rank-caches.js';
import { createWordCountNotes } from './search/word-counts.js';

export interface OpenBrainOptions {
  /** Path of the SQLite file; created (with its folder) if missing, unless `create` is false. */
  dbPath: string;
  /**
   * Make the brain when the file is missing or empty (default true). False: such a file is
   * NOT_FOUND, naming the path, and nothing is created (no file, no folder).
   */
  create?: boolean;
  /** Called once when this open made a new brain, e.g. to tell a person where it is. */
  onCreated?: () => void;
  clock?: Clock;
  maxBodyBytes?: number;
  readonly?: boolean;
  /** `normal` (default): a process crash loses nothing that returned; `full`: neither does a power cut. */
  durability?: Durability;
  /** Past this size the WAL is checkpointed and truncated (default 16 MiB). */
  walLimitBytes?: number;
  /** Rank with the compiled function when built (default true); false ranks with FTS5's bm25(). */
  rankFunction?: boolean;
  /** Page cache of this connection in MiB (SQLite's default is 2): larger for bulk loads. */
  cacheMiB?: number;
}

/**
 * Open the database (migrated) and the context every part of the brain shares, with the WAL
 * keeper to run after each call. `openBrain` and `openPoller` both start here.
 */
export function openContext(options: OpenBrainOptions): { ctx: BrainContext; wal: WalKeeper } {
  const db = openDatabase(options.dbPath, {
    readonly: options.readonly ?? false,
    durability: options.durability,
    rankFunction: options.rankFunction,
    create: options.create,
    onCreated: options.onCreated,
  });
  if (options.cacheMiB !== undefined)
    db.pragma(`cache_size = -${Math.max(1, Math.floor(options.cacheMiB * 1024))}`);
  const wal = createWalKeeper(db, options.dbPath, options.walLimitBytes);
  const ctx: BrainContext = {
    db,
    q: new StatementCache(db),
    clock: options.clock ?? systemClock,
    limits: { maxBodyBytes: options.maxBodyBytes ?? 1_048_576 },
    indexers: [],
    accesses: createAccessNotes(),
    wordCounts: createWordCountNotes(),
    noted: new Set(),
    ranking: createRankCaches(),
  };
  return { ctx, wal };
}
