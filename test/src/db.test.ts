import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import { dumpSchema } from '../../src/db/schema-dump.js';
import { APPLICATION_ID, BrainError, latestVersion, openBrain } from '../../src/index.js';
import { ROOT, tempDir } from '../helpers.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => cleanup());

async function codeOf(fn: () => unknown): Promise<string | undefined> {
  try {
    await fn();
  } catch (err) {
    return err instanceof BrainError ? `${err.code}: ${err.message}` : `other: ${String(err)}`;
  }
  return undefined;
}

describe('opening a database', () => {
  it('sets WAL, synchronous=NORMAL, foreign keys and a busy timeout on every connection', () => {
    const db = openDatabase(join(dir, 'b.db'));
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(1);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('busy_timeout', { simple: true })).toBeGreaterThanOrEqual(5000);
    expect(db.pragma('application_id', { simple: true })).toBe(APPLICATION_ID);
    expect(db.pragma('user_version', { simple: true })).toBe(latestVersion());
    db.close();
  });

  it('creates missing folders for the database file', async () => {
    const brain = await openBrain({ dbPath: join(dir, 'a', 'b', 'brain.db') });
    expect(brain.messages.poll('x').unread).toBe(0);
    brain.close();
  });

  it('refuses a file that is not SQLite', async () => {
    const path = join(dir, 'notes.txt');
    writeFileSync(
      path,
      'hello, this is not a database at all, just some text that goes on for a while',
    );
    expect(await codeOf(() => openBrain({ dbPath: path }))).toMatch(
      /^NOT_A_BRAIN: .*notes.txt is not a brain database \(not an SQLite file\)/,
    );
    expect(readFileSync(path, 'utf8')).toMatch(/^hello/);
  });

  it('refuses an SQLite database of another application', async () => {
    const path = join(dir, 'other.db');
    const other = new BetterSqlite3(path);
    other.exec('CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)');
    other.close();
    expect(await codeOf(() => openBrain({ dbPath: path }))).toMatch(
      /^NOT_A_BRAIN: .*is an SQLite database, but not a brain database/,
    );
    const check = new BetterSqlite3(path);
    expect(check.prepare(`SELECT name FROM sqlite_schema`).all()).toEqual([{ name: 'invoices' }]);
    check.close();
  });

  it('refuses a database made by a newer brain', async () => {
    const path = join(dir, 'new.db');
    (await openBrain({ dbPath: path })).close();
    const raw = new BetterSqlite3(path);
    raw.pragma(`user_version = ${latestVersion() + 1}`);
    raw.close();
    expect(await codeOf(() => openBrain({ dbPath: path }))).toMatch(
      /^SCHEMA_TOO_NEW: .*newer brain/,
    );
  });

  it('explains a directory given as the database', async () => {
    expect(await codeOf(() => openBrain({ dbPath: dir }))).toMatch(
      /^INVALID_INPUT: --db: .* is a directory/,
    );
  });

  it('migrates once when several connections open the same new file', async () => {
    const path = join(dir, 'shared.db');
    const brains = [];
    for (let i = 0; i < 3; i++) brains.push(await openBrain({ dbPath: path }));
    brains[0]!.messages.send({ from: 'a', to: 'b', body: 'hello' });
    expect(brains[2]!.messages.poll('b').unread).toBe(1);
    for (const b of brains) b.close();
  });
});

describe('schema.sql', () => {
  it('matches the fully migrated schema (run `npm run schema` after adding a migration)', () => {
    const db = openDatabase(':memory:');
    const expected = dumpSchema(db);
    db.close();
    expect(readFileSync(join(ROOT, 'schema.sql'), 'utf8')).toBe(expected);
  });
});
