import { statSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { DEFAULT_BUSY_TIMEOUT_MS } from '../db/open.js';

export interface StorageStats {
  /** The file's size once the WAL is checkpointed into it and truncated. */
  bytes: number;
  /** Bytes of each table and index (SQLite's dbstat), largest first; empty when not asked. */
  byObject: Record<string, number>;
}

/**
 * What a brain's file takes on disk, table by table: for `brain bench` and size reports. Opens
 * a connection of its own, checkpoints the WAL (which moves pages, not data: nothing a reader
 * sees changes), then reads SQLite's page statistics. Use it while no one else writes.
 */
export function measureStorage(dbPath: string, options: { byObject?: boolean } = {}): StorageStats {
  const db = new BetterSqlite3(dbPath, { fileMustExist: true });
  try {
    db.pragma(`busy_timeout = ${DEFAULT_BUSY_TIMEOUT_MS}`);
    db.pragma('wal_checkpoint(TRUNCATE)');
    const bytes = statSync(dbPath).size;
    if (options.byObject === false) return { bytes, byObject: {} };
    const rows = db
      .prepare(
        `SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC, name`,
      )
      .all() as Array<{ name: string; bytes: number }>;
    return { bytes, byObject: Object.fromEntries(rows.map((r) => [r.name, r.bytes])) };
  } finally {
    db.close();
  }
}
