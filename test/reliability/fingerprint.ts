import { createHash } from 'node:crypto';
import type { Database } from 'better-sqlite3';

/**
 * A hash of every row of every ordinary table (FTS shadow tables included), so a test can say
 * "this rejected write changed nothing" without listing what it might have changed.
 */
export function fingerprint(db: Database): string {
  const tables = db
    .prepare(
      `SELECT name FROM sqlite_schema WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%' ORDER BY name`,
    )
    .pluck()
    .all() as string[];
  const hash = createHash('sha256');
  for (const table of tables) {
    hash.update(`\0${table}\0`);
    for (const row of db.prepare(`SELECT * FROM "${table}"`).raw().iterate() as Iterable<
      unknown[]
    >) {
      for (const value of row) {
        if (Buffer.isBuffer(value)) hash.update(value);
        else hash.update(value === null ? '\u0001null' : `${typeof value}:${String(value)}`);
        hash.update('\u0000');
      }
      hash.update('\n');
    }
  }
  return hash.digest('hex');
}
