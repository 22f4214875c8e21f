import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import { BrainError } from '../errors.js';
import { packageRoot } from './package-root.js';

/** PRAGMA application_id of every brain database: "brn1". */
export const APPLICATION_ID = 0x62726e31;

export interface Migration {
  version: number;
  name: string;
  /** Read from its file when first asked for: opening an up-to-date brain reads none. */
  readonly sql: string;
}

let loaded: Migration[] | undefined;

export function loadMigrations(): Migration[] {
  if (loaded) return loaded;
  const dir = join(packageRoot(), 'migrations');
  const files = readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort();
  loaded = files.map((name, i) => {
    const version = Number(name.slice(0, 4));
    if (version !== i + 1) throw new Error(`migrations: expected version ${i + 1}, found ${name}`);
    let sql: string | undefined;
    return {
      version,
      name,
      get sql() {
        return (sql ??= readFileSync(join(dir, name), 'utf8'));
      },
    };
  });
  return loaded;
}

export function latestVersion(): number {
  return loadMigrations().length;
}

/** Refuse files that are not brain databases or were made by a newer brain; report the version. */
export function inspectDatabase(db: Database, path: string): { version: number; empty: boolean } {
  let appId: number;
  let version: number;
  let tables: number;
  try {
    // One statement, so one snapshot: read apart, another process creating the brain could
    // commit between the reads, and a brain half-seen would pass for a foreign file.
    ({ appId, version, tables } = db
      .prepare(
        `SELECT (SELECT application_id FROM pragma_application_id) AS appId,
           (SELECT user_version FROM pragma_user_version) AS version,
           (SELECT count(*) FROM sqlite_schema) AS tables`,
      )
      .get() as { appId: number; version: number; tables: number });
  } catch (err) {
    // Only "not a database" means the file is not one; a lock, a missing -shm folder or a
    // read-only disk is reported as what it is by the caller.
    if ((err as { code?: string }).code !== 'SQLITE_NOTADB') throw err;
    throw new BrainError('NOT_A_BRAIN', `${path} is not a brain database (not an SQLite file)`, {
      cause: err,
    });
  }
  const empty = tables === 0 && version === 0;
  if (!empty && appId !== APPLICATION_ID) {
    throw new BrainError('NOT_A_BRAIN', `${path} is an SQLite database, but not a brain database`);
  }
  if (version > latestVersion()) {
    throw new BrainError(
      'SCHEMA_TOO_NEW',
      `${path} was made by a newer brain (schema ${version}; this brain knows up to ${latestVersion()}): upgrade brain`,
    );
  }
  return { version, empty };
}

/**
 * Apply pending migrations in one immediate transaction; safe when several processes race.
 * `from` is the version this call found under the write lock: 0 when it made the brain.
 */
export function migrate(db: Database, path: string): { from: number; to: number } {
  const migrations = loadMigrations();
  const { version } = inspectDatabase(db, path);
  if (version === migrations.length) return { from: version, to: version };
  const apply = db.transaction((): number => {
    const current = inspectDatabase(db, path).version;
    for (const m of migrations.slice(current)) db.exec(m.sql);
    db.pragma(`application_id = ${APPLICATION_ID}`);
    db.pragma(`user_version = ${migrations.length}`);
    return current;
  });
  return { from: apply.immediate(), to: migrations.length };
}
