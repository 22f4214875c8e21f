import { connectionOf } from '../../src/brain.js';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BrainError, loadConfig, openBrain, type Brain } from '../../src/index.js';
import { fingerprint } from '../reliability/fingerprint.js';
import { runCli, tempBrain, tempDir, type TempBrain } from '../helpers.js';

async function failure(fn: () => unknown): Promise<BrainError> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof BrainError) return err;
    throw new Error(`not a BrainError: ${String(err)}`);
  }
  throw new Error('did not fail');
}

let t: TempBrain;
beforeEach(async () => {
  t = await tempBrain();
  t.brain.messages.send({ from: 'helios', to: 'nova', subject: 'seed', body: 'the first message' });
});
afterEach(() => t.cleanup());

describe('a full disk', () => {
  // SQLite's max_page_count caps the file exactly as a full disk does (both are SQLITE_FULL).
  const fill = (brain: Brain) =>
    connectionOf(brain).pragma(
      `max_page_count = ${connectionOf(brain).pragma('page_count', { simple: true })}`,
    );

  it('fails a send with a clear STORAGE_FAILED and changes nothing', async () => {
    fill(t.brain);
    const before = fingerprint(connectionOf(t.brain));
    const err = await failure(() =>
      t.brain.messages.send({ from: 'helios', to: 'nova', body: 'x'.repeat(200_000) }),
    );
    expect(err.code).toBe('STORAGE_FAILED');
    expect(err.message).toMatch(
      /brain\.db: the disk is full .*\(SQLITE_FULL\); nothing was changed$/,
    );
    expect(err.message).not.toContain('xxxx');
    expect(fingerprint(connectionOf(t.brain))).toBe(before);
    expect(t.brain.messages.poll('nova').unread).toBe(1);
  });

  it('fails remember, atoms and imports the same way, and works again once there is room', async () => {
    const other = await tempBrain();
    const big = 'y'.repeat(9_000);
    other.brain.messages.send({ from: 'ada', to: 'bob', body: big.repeat(10) });
    const doc = other.brain.transfer.export();
    other.cleanup();

    fill(t.brain);
    const before = fingerprint(connectionOf(t.brain));
    for (const write of [
      () => t.brain.knowledge.remember({ agent: 'nova', content: big.repeat(10) }),
      () =>
        t.brain.knowledge.createAtom({ agent: 'nova', subject: big, action: big, outcome: big }),
      () => t.brain.transfer.import(doc),
    ])
      expect((await failure(write)).message).toMatch(/SQLITE_FULL/);
    expect(fingerprint(connectionOf(t.brain))).toBe(before);
    connectionOf(t.brain).pragma('max_page_count = 1073741823');
    expect(t.brain.transfer.import(doc).imported.messages).toBe(1);
  });
});

describe('a read-only database', () => {
  it('answers reads and refuses writes with a clear error', async () => {
    const ro = await t.reopen({ readonly: true });
    expect(ro.messages.poll('nova').unread).toBe(1);
    expect(ro.search.search({ query: 'first' }).hits).toHaveLength(1);
    const before = fingerprint(connectionOf(ro));
    for (const write of [
      () => ro.messages.send({ from: 'helios', to: 'nova', body: 'second' }),
      () => ro.messages.read({ agent: 'nova' }),
      () => ro.touchAgent('zed'),
    ]) {
      const err = await failure(write);
      expect(err.code).toBe('STORAGE_FAILED');
      expect(err.message).toMatch(
        /the database is read-only.*\(SQLITE_READONLY\); nothing was changed/,
      );
    }
    expect(fingerprint(connectionOf(ro))).toBe(before);
  });
});

describe('a read-only disk under a writable connection', () => {
  // query_only refuses every write with SQLITE_READONLY, as a read-only mount does.
  it('still answers searches and lists that count memory accesses; writes are refused', async () => {
    const source = t.brain.messages.getMessage(t.brain.messages.peek({ agent: 'nova' })[0]!.id)!;
    t.brain.knowledge.remember({
      agent: 'nova',
      content: 'the first lesson',
      source_message_id: source.id,
    });
    connectionOf(t.brain).pragma('query_only = 1');
    const before = fingerprint(connectionOf(t.brain));
    expect(
      t.brain.search
        .search({ query: 'first' })
        .hits.map((h) => h.type)
        .sort(),
    ).toEqual(['message', 'stm']);
    expect(t.brain.knowledge.listStm()).toHaveLength(1);
    expect(t.brain.messages.poll('nova').unread).toBe(1);
    expect((await failure(() => t.brain.messages.read({ agent: 'nova' }))).message).toMatch(
      /SQLITE_READONLY/,
    );
    expect(fingerprint(connectionOf(t.brain))).toBe(before);
  });
});

describe('opening', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = tempDir()));
  afterEach(() => cleanup());

  it('explains a database path that cannot be created (SQLITE_CANTOPEN)', async () => {
    const link = join(dir, 'brain.db');
    symlinkSync(join(dir, 'missing', 'folder', 'brain.db'), link);
    const err = await failure(() => openBrain({ dbPath: link }));
    expect(err.code).toBe('STORAGE_FAILED');
    expect(err.message).toMatch(
      /^cannot open .*brain\.db: .*cannot be opened or created.*\(SQLITE_CANTOPEN\)$/,
    );
  });

  it('leaves a foreign SQLite database byte for byte as it was (no switch to WAL)', async () => {
    const path = join(dir, 'invoices.db');
    const other = new BetterSqlite3(path);
    other.exec('CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)');
    other.close();
    const bytes = readFileSync(path);
    expect((await failure(() => openBrain({ dbPath: path }))).code).toBe('NOT_A_BRAIN');
    expect(readFileSync(path).equals(bytes)).toBe(true);
  });

  it('leaves a text file as it was', async () => {
    const path = join(dir, 'notes.txt');
    writeFileSync(path, 'root:x:0:0:root:/root:/bin/bash\n');
    const err = await failure(() => openBrain({ dbPath: path }));
    expect(err.code).toBe('NOT_A_BRAIN');
    expect(err.message).not.toContain('root:x');
    expect(readFileSync(path, 'utf8')).toBe('root:x:0:0:root:/root:/bin/bash\n');
  });

  it('syncs every commit with BRAIN_DURABILITY=full, NORMAL by default', async () => {
    expect(loadConfig({ BRAIN_DURABILITY: 'full' }).durability).toBe('full');
    expect(loadConfig({}).durability).toBe('normal');
    expect(() => loadConfig({ BRAIN_DURABILITY: 'fast' })).toThrow(
      /BRAIN_DURABILITY: must be one of normal, full/,
    );
    const full = await openBrain({ dbPath: join(dir, 'f.db'), durability: 'full' });
    expect(connectionOf(full).pragma('synchronous', { simple: true })).toBe(2);
    full.close();
    const normal = await openBrain({ dbPath: join(dir, 'n.db') });
    expect(connectionOf(normal).pragma('synchronous', { simple: true })).toBe(1);
    normal.close();
  });

  it('the CLI says the same, exits 1 and prints no stack trace', async () => {
    const link = join(dir, 'link.db');
    symlinkSync(join(dir, 'nowhere', 'brain.db'), link);
    // A command that writes: one that reads finds no brain there (NOT_FOUND) before opening.
    const r = await runCli(['send', '--agent', 'nova', '--body', 'hi', '--db', link]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^brain: STORAGE_FAILED: cannot open .*\(SQLITE_CANTOPEN\)\n$/);
  });
});
