import type { Database } from 'better-sqlite3';
import type { DoctorCheck } from './check.js';

/** Every FTS5 table in the schema, so indexes added by later migrations are checked too. */
export function ftsTables(db: Database): string[] {
  return db
    .prepare(
      `SELECT name FROM sqlite_schema WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%fts5%' ORDER BY name`,
    )
    .pluck()
    .all() as string[];
}

/**
 * FTS5's own integrity check with rank = 1, which also compares each index with the rows it is
 * built from (every FTS table here reads its text from a table or view: external content).
 */
function ftsMatches(db: Database, table: string): boolean {
  try {
    db.prepare(`INSERT INTO "${table}"("${table}", rank) VALUES ('integrity-check', 1)`).run();
    return true;
  } catch (err) {
    if (!((err as { code?: string }).code ?? '').startsWith('SQLITE_CORRUPT')) throw err;
    return false;
  }
}

/** Words' row counts kept from an index that did not match its rows may be wrong: drop them all. */
function forgetWordCounts(db: Database): void {
  const kept = db
    .prepare(`SELECT count(*) FROM sqlite_schema WHERE name = 'search_count_epochs'`)
    .pluck()
    .get() as number;
  if (kept === 0) return;
  db.prepare(`UPDATE search_count_epochs SET epoch = epoch + 1`).run();
  db.prepare(`DELETE FROM search_word_counts`).run();
}

export const ftsCheck: DoctorCheck = {
  name: 'fts',
  description: 'each full-text index against the rows it indexes',
  run(db) {
    return ftsTables(db)
      .filter((table) => !ftsMatches(db, table))
      .map((table) => `${table} does not match the rows it indexes`);
  },
  repair(db) {
    return ftsTables(db)
      .filter((table) => !ftsMatches(db, table))
      .map((table) => {
        db.prepare(`INSERT INTO "${table}"("${table}") VALUES ('rebuild')`).run();
        forgetWordCounts(db);
        return `rebuilt ${table} from its rows`;
      });
  },
};
