import BetterSqlite3 from 'better-sqlite3';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { registerIndexText } from '../src/db/index-text.js';

interface SchemaObject {
  type: string;
  name: string;
  sql: string;
}

const MIGRATIONS = join(import.meta.dirname, '..', 'migrations');

/** The tables, views, indexes and triggers of a brain at `version`, made from migrations/ alone. */
function schemaAt(version: number): Map<string, SchemaObject> {
  const db = new BetterSqlite3(':memory:');
  registerIndexText(db);
  try {
    const files = readdirSync(MIGRATIONS)
      .filter((f) => /^\d{4}_.*\.sql$/u.test(f) && Number(f.slice(0, 4)) <= version)
      .sort();
    for (const file of files) db.exec(readFileSync(join(MIGRATIONS, file), 'utf8'));
    const rows = db
      .prepare(
        `SELECT type, name, sql FROM sqlite_schema WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'`,
      )
      .all() as SchemaObject[];
    return new Map(rows.map((r) => [r.name, r]));
  } finally {
    db.close();
  }
}

/**
 * Turn a brain file of today's schema into one of an older `version`, for the tests of
 * migrations: drop what every later migration created (tables, views, triggers, indexes, added
 * columns), newest first, and set the version. A table, view, index or trigger that a later
 * migration makes again (drops and creates under the same name) is put back as `version` had it;
 * such a table must be empty, since its rows cannot be put back. A migration that alters or drops
 * otherwise refuses, naming itself.
 */
export function downgrade(path: string, version: number): void {
  const target = schemaAt(version);
  const later = readdirSync(MIGRATIONS)
    .filter((f) => /^\d{4}_.*\.sql$/u.test(f) && Number(f.slice(0, 4)) > version)
    .sort()
    .reverse();
  const db = new BetterSqlite3(path);
  // Dropping a column checks every trigger again, and the index's triggers call this function.
  registerIndexText(db);
  try {
    db.transaction(() => {
      for (const file of later) {
        const sql = readFileSync(join(MIGRATIONS, file), 'utf8').replace(/--.*$/gmu, '');
        // A column added is dropped again; any other change of what exists cannot be undone.
        const added = [
          ...sql.matchAll(/\bALTER\s+TABLE\s+([A-Za-z_]\w*)\s+ADD\s+COLUMN\s+([A-Za-z_]\w*)/giu),
        ];
        // A table rebuilt (a new one filled, the old dropped, the new renamed to the old name, as
        // SQLite changes a CHECK) is undone by undoing the migration that created it, when that
        // one is undone too.
        const rebuilt = [...sql.matchAll(/\bALTER\s+TABLE\s+\w+\s+RENAME\s+TO\s+(\w+)/giu)].map(
          (m) => m[1]!,
        );
        let rest = sql.replace(/\bALTER\s+TABLE\s+[A-Za-z_]\w*\s+ADD\s+COLUMN\b/giu, '');
        for (const table of rebuilt) {
          const createdLater = later.some((f) =>
            new RegExp(`\\bCREATE\\s+TABLE\\s+${table}\\b`, 'iu').test(
              readFileSync(join(MIGRATIONS, f), 'utf8'),
            ),
          );
          if (!createdLater) continue;
          rest = rest
            .replace(new RegExp(`\\bDROP\\s+TABLE\\s+${table}\\b`, 'giu'), '')
            .replace(/\bALTER\s+TABLE\s+\w+\s+RENAME\s+TO\b/giu, '');
        }
        const created = [
          ...sql.matchAll(
            /\bCREATE\s+(?:VIRTUAL\s+)?(?:UNIQUE\s+)?(TABLE|VIEW|TRIGGER|INDEX)\s+(?:IF\s+NOT\s+EXISTS\s+)?([A-Za-z_][\w]*)/giu,
          ),
        ].reverse();
        // What it makes again is put back from the target schema below; a scratch table it
        // fills and drops on the way (CREATE TEMP TABLE) leaves nothing to undo.
        const remade = created.map((m) => m[2]!).filter((name) => target.has(name));
        const scratch = [...sql.matchAll(/\bCREATE\s+TEMP(?:ORARY)?\s+TABLE\s+(\w+)/giu)].map(
          (m) => m[1]!,
        );
        for (const name of [...remade, ...scratch])
          rest = rest.replace(
            new RegExp(`\\bDROP\\s+(TABLE|INDEX|TRIGGER|VIEW)\\s+${name}\\b`, 'giu'),
            '',
          );
        if (/\b(ALTER|DROP)\s+(TABLE|INDEX|VIEW|TRIGGER)\b/iu.test(rest))
          throw new Error(`downgrade: ${file} alters or drops; it cannot be undone by dropping`);
        // What it made goes first: an index or trigger it made may name a column it added.
        for (const [, kind, name] of created) {
          if (kind!.toUpperCase() === 'TABLE' && target.has(name!)) {
            const rows = db.prepare(`SELECT count(*) AS n FROM ${name}`).get() as { n: number };
            if (rows.n > 0)
              throw new Error(
                `downgrade: ${file} makes ${name} again, and its rows cannot be put back`,
              );
          }
          db.exec(`DROP ${kind!.toUpperCase()} IF EXISTS ${name}`);
        }
        for (const [, table, column] of added.reverse())
          db.exec(`ALTER TABLE ${table} DROP COLUMN ${column}`);
        // What it made again is put back as the migration before it had it, at once: dropping an
        // earlier migration's column checks the whole schema, views that read a view included.
        const before = schemaAt(Number(file.slice(0, 4)) - 1);
        const views = created.filter(
          ([, kind, name]) => kind!.toUpperCase() === 'VIEW' && before.has(name!),
        );
        for (const [, , name] of views.reverse()) db.exec(before.get(name!)!.sql);
      }
      const present = new Set(
        (db.prepare(`SELECT name FROM sqlite_schema`).all() as Array<{ name: string }>).map(
          (r) => r.name,
        ),
      );
      const order = ['table', 'view', 'index', 'trigger'];
      const missing = [...target.values()]
        .filter((o) => !present.has(o.name))
        .sort((a, b) => order.indexOf(a.type) - order.indexOf(b.type));
      for (const o of missing) db.exec(o.sql);
      db.pragma(`user_version = ${version}`);
    })();
  } finally {
    db.close();
  }
}
