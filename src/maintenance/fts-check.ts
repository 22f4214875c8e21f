import type { Database } from 'better-sqlite3';
import type { DoctorCheck } from './check.js';

/**
 * Contentless FTS5 tables keep no text, so FTS5 cannot compare them with anything: each names
 * the rows it must hold and the query that rebuilds them (migration 0002).
 */
const CONTENTLESS_SOURCES: Record<string, { base: string; rebuild: string }> = {
  messages_context_fts: {
    base: 'messages',
    rebuild: `INSERT INTO messages_context_fts (rowid, subject, body, sender, previous, next, date)
              SELECT id, subject, body, sender, previous, next, date FROM messages_context`,
  },
};

interface FtsTable {
  name: string;
  contentless: boolean;
}

/** Every FTS5 table in the schema, so indexes added by later migrations are checked too. */
export function ftsTables(db: Database): FtsTable[] {
  const rows = db
    .prepare(
      `SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%fts5%' ORDER BY name`,
    )
    .all() as Array<{ name: string; sql: string }>;
  return rows.map((r) => ({ name: r.name, contentless: /content\s*=\s*''/i.test(r.sql) }));
}

/**
 * FTS5's own integrity check. For an external-content table, rank = 1 also compares the index
 * with its content table; a contentless one is compared row for row with its base table.
 */
function ftsMatches(db: Database, table: FtsTable): boolean {
  const n = table.name;
  try {
    db.prepare(
      table.contentless
        ? `INSERT INTO "${n}"("${n}") VALUES ('integrity-check')`
        : `INSERT INTO "${n}"("${n}", rank) VALUES ('integrity-check', 1)`,
    ).run();
  } catch (err) {
    if (!((err as { code?: string }).code ?? '').startsWith('SQLITE_CORRUPT')) throw err;
    return false;
  }
  const source = CONTENTLESS_SOURCES[table.name];
  if (!table.contentless || !source) return true;
  const differ = db
    .prepare(
      `SELECT EXISTS (SELECT id FROM "${source.base}" EXCEPT SELECT rowid FROM "${table.name}")
           OR EXISTS (SELECT rowid FROM "${table.name}" EXCEPT SELECT id FROM "${source.base}")`,
    )
    .pluck()
    .get();
  return !differ;
}

function rebuild(db: Database, table: FtsTable): string {
  if (!table.contentless) {
    db.prepare(`INSERT INTO "${table.name}"("${table.name}") VALUES ('rebuild')`).run();
    return `rebuilt ${table.name} from its rows`;
  }
  const source = CONTENTLESS_SOURCES[table.name];
  if (!source) return `${table.name} keeps no text and has no known source: not rebuilt`;
  db.prepare(`INSERT INTO "${table.name}"("${table.name}") VALUES ('delete-all')`).run();
  db.prepare(source.rebuild).run();
  return `rebuilt ${table.name} from ${source.base}`;
}

export const ftsCheck: DoctorCheck = {
  name: 'fts',
  description: 'each full-text index against the rows it indexes',
  run(db) {
    return ftsTables(db)
      .filter((table) => !ftsMatches(db, table))
      .map((table) => `${table.name} does not match the rows it indexes`);
  },
  repair(db) {
    return ftsTables(db)
      .filter((table) => !ftsMatches(db, table))
      .map((table) => rebuild(db, table));
  },
};
