import BetterSqlite3 from 'better-sqlite3';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { registerIndexText } from '../src/db/index-text.js';

const MIGRATIONS = join(import.meta.dirname, '..', 'migrations');

/**
 * Turn a brain file of today's schema into one of an older `version`, for the tests of
 * migrations: drop what every later migration created (tables, views, triggers, indexes, added
 * columns), newest first, and set the version. Only migrations that create things can be undone
 * so; one that alters otherwise or drops refuses, naming itself.
 */
export function downgrade(path: string, version: number): void {
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
        if (/\b(ALTER|DROP)\s+(TABLE|INDEX|VIEW|TRIGGER)\b/iu.test(rest))
          throw new Error(`downgrade: ${file} alters or drops; it cannot be undone by dropping`);
        for (const [, table, column] of added.reverse())
          db.exec(`ALTER TABLE ${table} DROP COLUMN ${column}`);
        const created = [
          ...sql.matchAll(
            /\bCREATE\s+(?:VIRTUAL\s+)?(?:UNIQUE\s+)?(TABLE|VIEW|TRIGGER|INDEX)\s+(?:IF\s+NOT\s+EXISTS\s+)?([A-Za-z_][\w]*)/giu,
          ),
        ].reverse();
        for (const [, kind, name] of created)
          db.exec(`DROP ${kind!.toUpperCase()} IF EXISTS ${name}`);
      }
      db.pragma(`user_version = ${version}`);
    })();
  } finally {
    db.close();
  }
}
