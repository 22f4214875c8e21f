import { statSync } from 'node:fs';
import type { Brain } from '../../src/index.js';

/** The database file's size once the WAL is checkpointed into it and truncated. */
export function checkpointedBytes(brain: Brain): number {
  brain.db.pragma('wal_checkpoint(TRUNCATE)');
  return statSync(brain.path).size;
}

/** Bytes of each table and index (SQLite's dbstat), largest first. */
export function bytesByObject(brain: Brain): Record<string, number> {
  const rows = brain.db
    .prepare(
      `SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC, name`,
    )
    .all() as Array<{ name: string; bytes: number }>;
  return Object.fromEntries(rows.map((r) => [r.name, r.bytes]));
}
