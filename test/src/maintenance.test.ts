import { connectionOf } from '../../src/brain.js';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reported, spawnWorker } from '../../bench/workers.js';
import { messageKey } from '../../src/ids.js';
import { runDoctor } from '../../src/maintenance/doctor.js';
import { BrainError, openBrain, type DoctorReport } from '../../src/index.js';
import { fingerprint } from '../reliability/fingerprint.js';
import { wordEmbedder } from '../embedders.js';
import { fixedClock, tempBrain, type TempBrain } from '../helpers.js';

let t: TempBrain;
let ids: { direct: string; broadcast: string; thread: string };
beforeEach(async () => {
  t = await tempBrain({ clock: fixedClock() });
  const b = t.brain;
  for (const a of ['helios', 'nova', 'orion']) b.touchAgent(a);
  const direct = b.messages.send({
    from: 'helios',
    to: 'nova',
    subject: 'spread gate',
    body: 'zero power',
  });
  const broadcast = b.messages.send({
    from: 'nova',
    body: 'everyone: the gate stays',
    thread: direct.thread_id,
  });
  const stm = b.knowledge.remember({
    agent: 'nova',
    content: 'gate has no power',
    source_message_id: direct.id,
  });
  b.knowledge.createAtom({ agent: 'nova', subject: 'gate', action: 'tested', outcome: 'nothing' });
  b.messages.ack({ message_id: direct.id, agent: 'nova' });
  ids = { direct: direct.id, broadcast: broadcast.id, thread: direct.thread_id };
  expect(stm.id).toMatch(/^stm_/);
});
afterEach(() => t.cleanup());

const problemsOf = (r: DoctorReport, name: string) =>
  r.checks.find((c) => c.name === name)!.problems;
const messageRow = (id: string) =>
  connectionOf(t.brain)
    .prepare(`SELECT id FROM messages WHERE uid = ?`)
    .pluck()
    .get(messageKey(id)) as number;

describe('brain doctor', () => {
  it('passes every check on a healthy brain and changes nothing while checking', async () => {
    const before = fingerprint(connectionOf(t.brain));
    const report = await t.brain.upkeep.doctor();
    expect(report.ok).toBe(true);
    expect(report.checks.map((c) => c.name)).toEqual([
      'integrity',
      'fts',
      'thread_counters',
      'agent_counts',
      'deliveries',
      'vectors',
      'attachments',
      'cron_runs',
      'leases',
      'approvals',
      'sessions',
      'ranking',
    ]);
    expect(report.backup).toBeNull();
    expect(fingerprint(connectionOf(t.brain))).toBe(before);
  });

  for (const [table, base, columns] of [
    ['messages_fts', 'messages_search', ['subject', 'body', 'sender', 'date']],
    ['stm_fts', 'stm', ['content']],
    ['atoms_fts', 'atoms', ['subject', 'action', 'outcome', 'consequences']],
  ] as const) {
    it(`finds ${table} out of step with its rows and rebuilds it after a backup`, async () => {
      const row = connectionOf(t.brain)
        .prepare(`SELECT id, ${columns.join(', ')} FROM ${base} LIMIT 1`)
        .get() as Record<string, unknown>;
      const marks = columns.map(() => '?').join(', ');
      connectionOf(t.brain)
        .prepare(
          `INSERT INTO ${table}(${table}, rowid, ${columns.join(', ')}) VALUES ('delete', ?, ${marks})`,
        )
        .run(row.id, ...columns.map((c) => row[c]));
      // A row count kept from the index while it was out of step (migration 0015).
      connectionOf(t.brain)
        .prepare(
          `INSERT INTO search_word_counts (idx, term, n, upto) VALUES ('atom', 'kept', 3, 9)`,
        )
        .run();
      const found = await t.brain.upkeep.doctor();
      expect(found.ok).toBe(false);
      expect(problemsOf(found, 'fts')).toEqual([`${table} does not match the rows it indexes`]);

      const backup = join(t.dir, 'before-repair.db');
      const repaired = await t.brain.upkeep.doctor({ repair: true, backup_path: backup });
      expect(repaired.ok).toBe(true);
      expect(repaired.backup?.path).toBe(backup);
      expect(repaired.checks.find((c) => c.name === 'fts')!.repairs).toEqual([
        `rebuilt ${table} from its rows`,
      ]);
      const kept = connectionOf(t.brain).prepare(`SELECT count(*) FROM search_word_counts`);
      expect(kept.pluck().get()).toBe(0); // counted from a wrong index: dropped
      expect((await t.brain.upkeep.doctor()).ok).toBe(true);
      // The backup holds the database as it was before the repair.
      const saved = await openBrain({ dbPath: backup });
      expect(problemsOf(await saved.upkeep.doctor(), 'fts')).toHaveLength(1);
      saved.close();
    });
  }

  it('finds and recounts thread counters that disagree with their messages', async () => {
    connectionOf(t.brain)
      .prepare(`UPDATE threads SET message_count = 7, last_message_at = ?`)
      .run(Date.parse('2000-01-01T00:00:00.000Z'));
    const found = await t.brain.upkeep.doctor();
    expect(problemsOf(found, 'thread_counters')).toEqual([
      `thread ${ids.thread} counts 7 messages but has 2`,
    ]);
    const repaired = await t.brain.upkeep.doctor({
      repair: true,
      backup_path: join(t.dir, 'b.db'),
    });
    expect(repaired.ok).toBe(true);
    const thread = t.brain.messages.getThread(ids.thread)!;
    expect(thread.message_count).toBe(2);
    expect(thread.last_message_at).toBe('2026-01-01T00:00:00.000Z');

    connectionOf(t.brain)
      .prepare(`UPDATE threads SET last_message_at = ?`)
      .run(Date.parse('2000-01-01T00:00:00.000Z'));
    expect(problemsOf(await t.brain.upkeep.doctor(), 'thread_counters')).toEqual([
      `thread ${ids.thread} was last active at 2000-01-01T00:00:00.000Z, before its last message (2026-01-01T00:00:00.000Z)`,
    ]);
    await t.brain.upkeep.doctor({ repair: true, backup_path: join(t.dir, 'c.db') });
    expect(t.brain.messages.getThread(ids.thread)!.last_message_at).toBe(
      '2026-01-01T00:00:00.000Z',
    );
  });

  it('finds and recounts agents whose sent and received counts disagree with their rows', async () => {
    connectionOf(t.brain).prepare(`UPDATE agent_counts SET sent = sent + 5, received = 0`).run();
    const found = problemsOf(await t.brain.upkeep.doctor(), 'agent_counts');
    expect(found.some((p) => /is counted as sending \d+ messages but sent \d+/.test(p))).toBe(true);
    expect(found.some((p) => /is counted as receiving 0 messages but received \d+/.test(p))).toBe(
      true,
    );
    const repaired = await t.brain.upkeep.doctor({
      repair: true,
      backup_path: join(t.dir, 'd.db'),
    });
    expect(repaired.ok).toBe(true);
    expect(problemsOf(await t.brain.upkeep.doctor(), 'agent_counts')).toEqual([]);
  });

  it('finds deliveries that break the rules; repairs what it can and leaves the rest to a person', async () => {
    const db = connectionOf(t.brain);
    const direct = messageRow(ids.direct);
    const broadcast = messageRow(ids.broadcast);
    const agent = (name: string) =>
      db.prepare(`SELECT id FROM agents WHERE name = ?`).pluck().get(name);
    db.prepare(`UPDATE deliveries SET read_at = NULL WHERE message_id = ?`).run(direct); // acked, unread
    db.prepare(`INSERT INTO deliveries (message_id, agent_id) VALUES (?, ?)`).run(
      direct,
      agent('orion'),
    );
    db.prepare(`INSERT INTO deliveries (message_id, agent_id) VALUES (?, ?)`).run(
      broadcast,
      agent('nova'),
    );
    const found = await t.brain.upkeep.doctor();
    expect(problemsOf(found, 'deliveries').sort()).toEqual(
      [
        `message ${ids.direct} is addressed to someone else but delivered to orion`,
        `broadcast ${ids.broadcast} is delivered to its own sender nova`,
        `message ${ids.direct} is acknowledged by nova but still unread`,
      ].sort(),
    );
    const repaired = await t.brain.upkeep.doctor({
      repair: true,
      backup_path: join(t.dir, 'b.db'),
    });
    const check = repaired.checks.find((c) => c.name === 'deliveries')!;
    expect(check.repairs).toEqual([
      'removed 1 delivery(ies) of broadcasts to their sender',
      'marked 1 acknowledged delivery(ies) read',
    ]);
    expect(check.remaining).toEqual([
      `message ${ids.direct} is addressed to someone else but delivered to orion`,
    ]);
    expect(repaired.ok).toBe(false);

    db.prepare(`DELETE FROM deliveries WHERE message_id = ?`).run(direct);
    expect(problemsOf(await t.brain.upkeep.doctor(), 'deliveries')).toEqual([
      `message ${ids.direct} was never delivered to its recipient nova`,
    ]);
    await t.brain.upkeep.doctor({ repair: true, backup_path: join(t.dir, 'c.db') });
    // Delivered again, and read: nova had acknowledged it.
    const receipts = t.brain.messages.thread({ thread_id: ids.thread }).messages[0]!.receipts;
    expect(receipts).toEqual([{ agent: 'nova', read_at: '2026-01-01T00:00:00.000Z' }]);
  });

  it('finds a damaged index in the file and rebuilds it (REINDEX)', async () => {
    for (let i = 0; i < 50; i++)
      t.brain.messages.send({ from: 'helios', to: 'nova', body: `filler ${i}` });
    const path = t.path;
    t.brain.close();
    // Flip one stored time inside a leaf page of the messages_by_time index.
    const raw = new BetterSqlite3(path);
    const page = raw
      .prepare(
        `SELECT pageno FROM dbstat WHERE name = 'messages_by_time' AND pagetype = 'leaf' LIMIT 1`,
      )
      .pluck()
      .get() as number;
    const size = raw.pragma('page_size', { simple: true }) as number;
    raw.close();
    // Times are stored as milliseconds in 6 bytes, big-endian (migration 0005).
    const bytes = readFileSync(path);
    const stored = Buffer.alloc(6);
    stored.writeUIntBE(Date.parse('2026-01-01T00:00:00.000Z'), 0, 6);
    const at = bytes.indexOf(stored, (page - 1) * size);
    expect(at).toBeGreaterThan((page - 1) * size);
    expect(at).toBeLessThan(page * size);
    bytes.writeUIntBE(Date.parse('1999-01-01T00:00:00.000Z'), at, 6);
    writeFileSync(path, bytes);

    const brain = await openBrain({ dbPath: path });
    try {
      const found = await brain.upkeep.doctor();
      expect(problemsOf(found, 'integrity').join('\n')).toMatch(/messages_by_time/);
      const repaired = await brain.upkeep.doctor({
        repair: true,
        backup_path: join(t.dir, 'r.db'),
      });
      expect(repaired.checks[0]!.repairs).toEqual(['rebuilt every index (REINDEX)']);
      expect(repaired.ok).toBe(true);
    } finally {
      brain.close();
    }
  });

  it('keeps the message index in step when a message row is updated or deleted in SQL', async () => {
    const direct = messageRow(ids.direct);
    connectionOf(t.brain)
      .prepare(`UPDATE messages SET body = 'quetzal feathers' WHERE id = ?`)
      .run(direct);
    const found = connectionOf(t.brain)
      .prepare(`SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'quetzal'`)
      .pluck()
      .all();
    expect(found).toEqual([direct]);
    connectionOf(t.brain).pragma('foreign_keys = OFF'); // acks and knowledge point at it; only the index matters here
    connectionOf(t.brain).prepare(`DELETE FROM messages WHERE id = ?`).run(direct);
    expect(
      connectionOf(t.brain)
        .prepare(`SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'quetzal'`)
        .all(),
    ).toEqual([]);
    expect(problemsOf(await t.brain.upkeep.doctor(), 'fts')).toEqual([]);
  });

  describe('vectors against the embedding queue', () => {
    const embedder = () => wordEmbedder(['gate', 'power', 'nothing']);
    const vectors = (r: DoctorReport) => r.checks.find((c) => c.name === 'vectors')!;

    it('pass when every item is embedded or queued', async () => {
      expect(vectors(await t.brain.upkeep.doctor()).problems).toEqual([]); // all queued
      await t.brain.embed.embedQueued(embedder());
      expect(t.brain.embed.embedStatus()).toMatchObject({ pending: 0, failed: 0 });
      expect(vectors(await t.brain.upkeep.doctor()).problems).toEqual([]); // all embedded
    });

    it('find an item neither embedded nor queued, and queue it', async () => {
      // As if a drainer had claimed the atom (cursor past it) and its queue row were lost.
      connectionOf(t.brain)
        .prepare(
          `UPDATE embed_cursor SET last_id = (SELECT max(id) FROM atoms) WHERE item_type = 'atom'`,
        )
        .run();
      expect(vectors(await t.brain.upkeep.doctor()).problems).toEqual([
        '1 atom item(s) have no vector and are not queued for one',
      ]);
      const repaired = await t.brain.upkeep.doctor({
        repair: true,
        backup_path: join(t.dir, 'b.db'),
      });
      expect(vectors(repaired).repairs).toEqual([
        'queued 1 item(s) for embedding',
        'run `brain embed` (or keep a server running) to make the vectors',
      ]);
      expect(repaired.ok).toBe(true);
      expect(t.brain.embed.embedStatus().pending).toBe(4);
    });

    it('find vectors missing from the index, of another model, or without an index row; drop and queue them again', async () => {
      await t.brain.embed.embedQueued(embedder());
      const db = connectionOf(t.brain);
      const [a, b, c] = db
        .prepare(`SELECT id FROM embeddings ORDER BY id`)
        .pluck()
        .all() as number[];
      db.prepare(`DELETE FROM vec_index WHERE rowid = ?`).run(BigInt(a!));
      db.prepare(`UPDATE embeddings SET model = 'old-model' WHERE id = ?`).run(b);
      db.prepare(`DELETE FROM embeddings WHERE id = ?`).run(c); // its index row stays behind
      const problems = vectors(await t.brain.upkeep.doctor()).problems;
      expect(problems).toHaveLength(4);
      expect(problems).toEqual(
        expect.arrayContaining([
          '1 vector(s) are missing from the vector index',
          '1 vector(s) are not of the current model (brain-test-words)',
          '1 vector index row(s) have no stored vector',
          expect.stringMatching(
            /^1 (message|stm|atom) item\(s\) have no vector and are not queued for one$/,
          ),
        ]),
      );
      const repaired = await t.brain.upkeep.doctor({
        repair: true,
        backup_path: join(t.dir, 'b.db'),
      });
      expect(repaired.ok).toBe(true);
      expect(t.brain.embed.embedStatus().pending).toBe(3);
      await t.brain.embed.embedQueued(embedder());
      expect((await t.brain.upkeep.doctor()).ok).toBe(true);
      expect(db.prepare(`SELECT count(*) FROM vec_index`).pluck().get()).toBe(4);
    });
  });

  it('reports a check that cannot run instead of failing', async () => {
    const report = await runDoctor(connectionOf(t.brain), t.path, fixedClock(), {}, [
      {
        name: 'broken',
        description: 'always throws',
        run: () => {
          throw Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_READ' });
        },
      },
    ]);
    expect(report.ok).toBe(false);
    expect(report.checks[0]!.problems).toEqual([
      'could not run: the disk reported an I/O error (SQLITE_IOERR_READ)',
    ]);
  });

  it('takes no backup when there is nothing to repair', async () => {
    const report = await t.brain.upkeep.doctor({ repair: true });
    expect(report).toMatchObject({ ok: true, backup: null });
    expect(readdirSync(t.dir).filter((f) => f.includes('.bak-'))).toEqual([]);
  });
});

describe('brain backup', () => {
  it('copies a consistent database while two writer processes keep sending', async () => {
    const writers = [0, 1].map((i) =>
      spawnWorker(['writer', '--db', t.path, '--name', `w${i}`, '--count', '400', '--to', 'nova']),
    );
    // The copy starts once both writers have sent (no fixed wait: they start at their own pace).
    await Promise.all(writers.map((w) => w.line('sent ')));
    const before = t.brain.messages.poll('nova').unread;
    const file = join(t.dir, 'copy.db');
    const result = await t.brain.upkeep.backup(file);
    const after = t.brain.messages.poll('nova').unread;
    expect(await Promise.all(writers.map((w) => w.exited))).toEqual([0, 0]);
    expect(result.path).toBe(file);
    expect(result.bytes).toBeGreaterThan(0);
    expect(existsSync(`${file}.partial`)).toBe(false);

    const copy = await openBrain({ dbPath: file });
    try {
      expect((await copy.upkeep.doctor()).ok).toBe(true);
      const copied = copy.messages.poll('nova').unread;
      expect(copied).toBeGreaterThanOrEqual(before);
      expect(copied).toBeLessThanOrEqual(after);
      const sent = writers.flatMap((w) => reported(w, 'sent'));
      expect(sent).toHaveLength(800);
    } finally {
      copy.close();
    }
  });

  it('refuses to overwrite a file or to copy the database onto itself', async () => {
    const existing = join(t.dir, 'taken.db');
    writeFileSync(existing, 'precious');
    await expect(t.brain.upkeep.backup(existing)).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringMatching(/taken\.db already exists/),
    });
    expect(readFileSync(existing, 'utf8')).toBe('precious');
    await expect(t.brain.upkeep.backup(t.path)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(t.brain.upkeep.backup('')).rejects.toBeInstanceOf(BrainError);
  });

  it('explains a target it cannot write, and leaves nothing behind', async () => {
    const blocker = join(t.dir, 'a-file');
    writeFileSync(blocker, '');
    await expect(t.brain.upkeep.backup(join(blocker, 'copy.db'))).rejects.toMatchObject({
      code: 'STORAGE_FAILED',
      message: expect.stringMatching(/^backup to .*copy\.db failed: /),
    });
  });
});
