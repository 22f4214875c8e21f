import { connectionOf } from '../../src/brain.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { APPLICATION_ID, openBrain, type Brain } from '../../src/index.js';
import { ROOT, tempDir } from '../helpers.js';

const THREAD = 'thr_00000000-0000-4000-8000-000000000001';
const OTHER_THREAD = 'thr_00000000-0000-4000-8000-000000000002';

/** Messages of a version 4 brain: id, thread row, from, to, reply_to row, subject, body, time. */
const MESSAGES: Array<
  [string, number, number, number | null, number | null, string | null, string, string]
> = [
  [
    'syn_000000000000',
    1,
    1,
    2,
    null,
    'the kiln',
    'is the kiln hot yet',
    '2023-05-08T09:00:00.000Z',
  ],
  ['syn_ffffffffffff', 1, 2, 1, 1, null, 'not before noon', '2023-05-08T09:00:00.000Z'],
  ['syn_0123456789ab', 1, 1, null, null, null, 'glaze the bowls first', '2023-05-08T08:30:00.250Z'],
  [
    'syn_a1b2c3d4e5f6',
    2,
    2,
    1,
    null,
    null,
    'quetzal feathers at midnight',
    '2023-05-08T23:59:59.999Z',
  ],
  ['syn_00000000beef', 2, 1, 2, 4, null, 'the day after', '2023-05-09T00:00:00.000Z'],
];

let dir: { dir: string; cleanup: () => void } | undefined;
let brain: Brain | undefined;
afterEach(() => {
  brain?.close();
  brain = undefined;
  dir?.cleanup();
  dir = undefined;
});

/** A version 4 brain built by hand, as a brain of that version left it. */
function versionFour(path: string, messages = MESSAGES): void {
  const old = new BetterSqlite3(path);
  old.pragma('foreign_keys = ON');
  for (const name of [
    '0001_init.sql',
    '0002_vectors.sql',
    '0003_lean_search.sql',
    '0004_compact_queue_and_receipts.sql',
  ])
    old.exec(readFileSync(join(ROOT, 'migrations', name), 'utf8'));
  old.pragma(`application_id = ${APPLICATION_ID}`);
  old.pragma('user_version = 4');
  const at = '2023-05-08T08:00:00.000Z';
  old.exec(`INSERT INTO agents (name, created_at, last_seen_at) VALUES ('helios', '${at}', '${at}'), ('nova', '${at}', '${at}');
    INSERT INTO threads (uid, subject, created_by, created_at, last_message_at, message_count) VALUES
      ('${THREAD}', 'pottery day', 1, '${at}', '2023-05-08T09:00:00.000Z', 3),
      ('${OTHER_THREAD}', 'birds', 2, '${at}', '2023-05-09T00:00:00.000Z', 2);`);
  const send = old.prepare(
    `INSERT INTO messages (uid, thread_id, from_agent, to_agent, reply_to, subject, body, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const m of messages) send.run(...m);
  old.exec(`INSERT INTO deliveries (message_id, agent_id, read_at)
      SELECT id, coalesce(to_agent, 2), CASE id WHEN 1 THEN 1683536400000 END FROM messages;
    INSERT INTO acks (message_id, agent_id, body, created_at) VALUES (1, 2, 'seen', '2023-05-08T10:00:00.000Z');
    INSERT INTO stm (uid, agent_id, content, source_message_id, created_at) VALUES ('stm_000000000001', 2, 'the kiln needs the morning', 2, '${at}');
    INSERT INTO atoms (uid, agent_id, subject, action, outcome, source_message_id, created_at) VALUES ('atm_000000000001', 1, 'kiln', 'wait', 'hot by noon', 2, '${at}');`);
  old.close();
}

function searchView(db: BetterSqlite3.Database) {
  return db
    .prepare(`SELECT id, subject, body, sender, date FROM messages_search ORDER BY id`)
    .all();
}

describe('migrations 0005 and 0006: message ids and times as integers, thread ids as bytes', () => {
  it('keeps every id, time, reply, receipt and ack of a version 4 brain', async () => {
    dir = tempDir();
    const path = join(dir.dir, 'v4.db');
    versionFour(path);
    brain = await openBrain({ dbPath: path });

    for (const [id, , , , , , body, createdAt] of MESSAGES) {
      expect(brain.messages.getMessage(id)).toMatchObject({ id, body, created_at: createdAt });
    }
    expect(brain.messages.getMessage('syn_ffffffffffff')).toMatchObject({
      reply_to: 'syn_000000000000',
      subject: 'pottery day',
      from: 'nova',
      to: 'helios',
    });
    expect(brain.messages.getMessage('syn_0123456789ab')).toMatchObject({
      to: null,
      reply_to: null,
    });
    // Stored as numbers: the id's 48 bits and milliseconds; a thread id as its UUID's 16 bytes.
    expect(
      connectionOf(brain).prepare(`SELECT uid, created_at FROM messages WHERE id = 4`).get(),
    ).toEqual({
      uid: 0xa1b2c3d4e5f6,
      created_at: Date.parse('2023-05-08T23:59:59.999Z'),
    });
    expect(
      connectionOf(brain).prepare(`SELECT hex(uid) AS uid FROM threads WHERE id = 2`).get(),
    ).toEqual({
      uid: '00000000000040008000000000000002',
    });
    expect(brain.messages.getThread(OTHER_THREAD)).toMatchObject({
      subject: 'birds',
      message_count: 2,
      last_message_at: '2023-05-09T00:00:00.000Z',
    });

    // In time order, ties by rowid.
    const history = brain.messages.thread({ thread_id: THREAD });
    expect(history.messages.map((m) => m.id)).toEqual([
      'syn_0123456789ab',
      'syn_000000000000',
      'syn_ffffffffffff',
    ]);
    expect(history.messages[1]!.receipts).toEqual([
      { agent: 'nova', read_at: '2023-05-08T09:00:00.000Z' },
    ]);
    expect(history.messages[1]!.acks).toEqual([
      {
        message_id: 'syn_000000000000',
        agent: 'nova',
        body: 'seen',
        created_at: '2023-05-08T10:00:00.000Z',
      },
    ]);
    expect(brain.messages.poll('nova').unread).toBe(2);
  });

  it('leaves the full-text index as it was: same words per message, integrity-check passes', async () => {
    dir = tempDir();
    const path = join(dir.dir, 'v4.db');
    versionFour(path);
    const old = new BetterSqlite3(path, { readonly: true });
    const before = searchView(old);
    old.close();

    brain = await openBrain({ dbPath: path });
    expect(searchView(connectionOf(brain))).toEqual(before);
    expect(before).toContainEqual(
      expect.objectContaining({ id: 4, date: '8 May 2023', sender: 'nova to helios' }),
    );
    expect(() =>
      connectionOf(brain!).exec(
        `INSERT INTO messages_fts(messages_fts, rank) VALUES('integrity-check', 1)`,
      ),
    ).not.toThrow();
    expect(connectionOf(brain).pragma('foreign_key_check')).toEqual([]);
    expect(connectionOf(brain).pragma('integrity_check')).toEqual([{ integrity_check: 'ok' }]);

    // Words and dates in words still find messages; deleting through the triggers stays consistent.
    expect(brain.search.search({ query: 'quetzal feathers' }).hits[0]).toMatchObject({
      id: 'syn_a1b2c3d4e5f6',
      time: '2023-05-08T23:59:59.999Z',
      thread_id: OTHER_THREAD,
    });
    expect(brain.search.search({ query: '9 May 2023', types: ['message'] }).hits[0]?.id).toBe(
      'syn_00000000beef',
    );
    connectionOf(brain)
      .prepare(`UPDATE messages SET body = 'glaze the cups first' WHERE id = 3`)
      .run();
    connectionOf(brain).exec(
      `DELETE FROM deliveries WHERE message_id = 5; DELETE FROM messages WHERE id = 5`,
    );
    expect(() =>
      connectionOf(brain!).exec(
        `INSERT INTO messages_fts(messages_fts, rank) VALUES('integrity-check', 1)`,
      ),
    ).not.toThrow();
    expect(brain.search.search({ query: 'cups' }).hits[0]?.id).toBe('syn_0123456789ab');
    expect(brain.search.search({ query: 'bowls' }).hits).toEqual([]);
    expect(brain.search.search({ query: 'the day after' }).hits.map((h) => h.id)).not.toContain(
      'syn_00000000beef',
    );
  });

  it('keeps provenance, and new messages, replies and time filters work beside the old ones', async () => {
    dir = tempDir();
    const path = join(dir.dir, 'v4.db');
    versionFour(path);
    brain = await openBrain({ dbPath: path });

    const prov = brain.knowledge.provenance({ id: 'stm_000000000001' });
    expect(prov.message?.id).toBe('syn_ffffffffffff');
    expect(prov.context.map((m) => m.id)).toEqual([
      'syn_0123456789ab',
      'syn_000000000000',
      'syn_ffffffffffff',
    ]);
    expect(prov.thread?.id).toBe(THREAD);
    expect(brain.knowledge.provenance({ id: 'syn_ffffffffffff' }).derived).toMatchObject({
      stm: [{ id: 'stm_000000000001', source_message_id: 'syn_ffffffffffff' }],
      atoms: [{ id: 'atm_000000000001', source_message_id: 'syn_ffffffffffff' }],
    });

    const reply = brain.messages.send({
      from: 'helios',
      body: 'noon it is, kiln',
      reply_to: 'syn_ffffffffffff',
      at: '2023-05-08T09:00:00.5+00:00',
    });
    expect(reply).toMatchObject({ thread_id: THREAD, created_at: '2023-05-08T09:00:00.500Z' });
    expect(brain.messages.getMessage(reply.id)).toMatchObject({
      reply_to: 'syn_ffffffffffff',
      created_at: '2023-05-08T09:00:00.500Z',
    });
    expect(brain.messages.thread({ thread_id: THREAD }).messages.at(-1)!.id).toBe(reply.id);

    // Found with their neighbours in the thread, which pass the same filters.
    const kiln = (filter: { since?: string; until?: string }) =>
      brain!.search.search({ query: 'kiln', types: ['message'], ...filter }).hits.map((h) => h.id);
    expect(kiln({ since: '2023-05-08T09:00:00.001Z' })).toEqual([reply.id]);
    const before = kiln({ until: '2023-05-08T09:00:00.001Z' });
    expect(before).toContain('syn_000000000000');
    expect(before).not.toContain(reply.id);
    expect(brain.messages.getMessage('syn_00000000beee')).toBeUndefined();
    expect(brain.messages.getMessage('not an id')).toBeUndefined();
  });

  it('refuses a message id it cannot turn into a number, and leaves the brain at version 4', async () => {
    dir = tempDir();
    const path = join(dir.dir, 'v4.db');
    versionFour(path, [
      ['syn_000000000001', 1, 1, 2, null, null, 'a good id', '2023-05-08T09:00:00.000Z'],
      ['syn_00000000000A', 1, 2, 1, null, null, 'an id in capitals', '2023-05-08T09:00:00.000Z'],
    ]);
    await expect(openBrain({ dbPath: path })).rejects.toThrow(/CHECK constraint failed/);
    const old = new BetterSqlite3(path, { readonly: true });
    expect(old.pragma('user_version', { simple: true })).toBe(4);
    expect(old.prepare(`SELECT uid FROM messages ORDER BY id`).all()).toEqual([
      { uid: 'syn_000000000001' },
      { uid: 'syn_00000000000A' },
    ]);
    old.close();
  });
});

describe("migration 0008: threads' times as integers", () => {
  it('stores milliseconds, answers the same ISO times, and mends a time brain never wrote', async () => {
    dir = tempDir();
    const path = join(dir.dir, 'v4.db');
    versionFour(path);
    const old = new BetterSqlite3(path);
    // A thread whose times are not times: it takes those of its messages.
    old.prepare(`UPDATE threads SET created_at = 'x', last_message_at = 'soon' WHERE id = 2`).run();
    const range = old
      .prepare(
        `SELECT min(created_at) AS first, max(created_at) AS last FROM messages WHERE thread_id = 2`,
      )
      .get() as { first: string; last: string };
    old.close();
    brain = await openBrain({ dbPath: path });
    expect(
      connectionOf(brain)
        .prepare(
          `SELECT id, created_at, last_message_at, typeof(created_at) AS t FROM threads ORDER BY id`,
        )
        .all(),
    ).toEqual([
      {
        id: 1,
        created_at: Date.parse('2023-05-08T08:00:00.000Z'),
        last_message_at: Date.parse('2023-05-08T09:00:00.000Z'),
        t: 'integer',
      },
      {
        id: 2,
        created_at: Date.parse(range.first),
        last_message_at: Date.parse(range.last),
        t: 'integer',
      },
    ]);
    expect(brain.messages.getThread(THREAD)).toMatchObject({
      created_at: '2023-05-08T08:00:00.000Z',
      last_message_at: '2023-05-08T09:00:00.000Z',
    });
    expect(brain.messages.getThread(OTHER_THREAD)).toMatchObject({ last_message_at: range.last });
    // New threads and replies keep them as numbers, and the doctor finds nothing to mend.
    const sent = brain.messages.send({
      from: 'helios',
      to: 'nova',
      body: 'a new thread',
      at: '2024-02-03T04:05:06.789Z',
    });
    brain.messages.send({
      from: 'nova',
      to: 'helios',
      body: 'a reply',
      reply_to: sent.id,
      at: '2024-02-03T05:00:00.000Z',
    });
    expect(brain.messages.getThread(sent.thread_id)).toMatchObject({
      created_at: '2024-02-03T04:05:06.789Z',
      last_message_at: '2024-02-03T05:00:00.000Z',
      message_count: 2,
    });
  });
});

describe('migration 0009: the times of agents, acks, STM, atoms and links as integers', () => {
  /** The stored value and type of every time column 0009 converts, read past the library. */
  function storedTimes(path: string) {
    const raw = new BetterSqlite3(path, { readonly: true });
    try {
      const all = (sql: string) => raw.prepare(sql).all();
      return {
        agents: all(`SELECT name, created_at, last_seen_at FROM agents ORDER BY id`),
        acks: all(`SELECT message_id, created_at FROM acks ORDER BY message_id`),
        stm: all(`SELECT uid, created_at, expires_at, last_accessed_at FROM stm ORDER BY id`),
        atoms: all(`SELECT uid, created_at FROM atoms ORDER BY id`),
        links: all(`SELECT from_atom, to_atom, created_at FROM atom_links`),
        types: all(
          `SELECT DISTINCT typeof(v) AS t FROM (
             SELECT created_at AS v FROM agents UNION ALL SELECT last_seen_at FROM agents
             UNION ALL SELECT created_at FROM acks UNION ALL SELECT created_at FROM stm
             UNION ALL SELECT expires_at FROM stm WHERE expires_at IS NOT NULL
             UNION ALL SELECT created_at FROM atoms UNION ALL SELECT created_at FROM atom_links)`,
        ),
      };
    } finally {
      raw.close();
    }
  }

  it('stores milliseconds, answers the same ISO times, and mends the times brain never wrote', async () => {
    dir = tempDir();
    const path = join(dir.dir, 'v4.db');
    versionFour(path);
    const old = new BetterSqlite3(path);
    old.exec(`
      UPDATE agents SET created_at = 'x', last_seen_at = 'never' WHERE name = 'nova';
      UPDATE acks SET created_at = 'yesterday';
      UPDATE stm SET expires_at = '2030-01-01T00:00:00.000Z', last_accessed_at = '2023-05-10T00:00:00.000Z';
      INSERT INTO stm (uid, agent_id, content, source_message_id, created_at, expires_at, last_accessed_at)
        VALUES ('stm_000000000002', 2, 'a time of its source', 4, 'x', 'soon', 'y'),
               ('stm_000000000003', 1, 'a time of its agent', NULL, 'x', NULL, NULL);
      INSERT INTO atoms (uid, agent_id, subject, action, outcome, created_at)
        VALUES ('atm_000000000002', 2, 'birds', 'watch', 'quetzal', 'x');
      INSERT INTO atom_links (from_atom, to_atom, link_type, created_at) VALUES (1, 2, 'causes', 'x');`);
    old.close();
    brain = await openBrain({ dbPath: path });
    const ms = (iso: string) => Date.parse(iso);
    // nova's first and last messages: 09:00 on the 8th, 23:59:59.999 that night.
    expect(storedTimes(path)).toEqual({
      agents: [
        {
          name: 'helios',
          created_at: ms('2023-05-08T08:00:00.000Z'),
          last_seen_at: ms('2023-05-08T08:00:00.000Z'),
        },
        {
          name: 'nova',
          created_at: ms('2023-05-08T09:00:00.000Z'),
          last_seen_at: ms('2023-05-08T23:59:59.999Z'),
        },
      ],
      // When nova read the message it acked.
      acks: [{ message_id: 1, created_at: 1683536400000 }],
      stm: [
        {
          uid: 'stm_000000000001',
          created_at: ms('2023-05-08T08:00:00.000Z'),
          expires_at: ms('2030-01-01T00:00:00.000Z'),
          last_accessed_at: ms('2023-05-10T00:00:00.000Z'),
        },
        {
          uid: 'stm_000000000002',
          created_at: ms('2023-05-08T23:59:59.999Z'),
          expires_at: null,
          last_accessed_at: null,
        },
        {
          uid: 'stm_000000000003',
          created_at: ms('2023-05-08T08:00:00.000Z'),
          expires_at: null,
          last_accessed_at: null,
        },
      ],
      // The atom falls back on its agent's mended time; the link on the later of its atoms'.
      atoms: [
        { uid: 'atm_000000000001', created_at: ms('2023-05-08T08:00:00.000Z') },
        { uid: 'atm_000000000002', created_at: ms('2023-05-08T09:00:00.000Z') },
      ],
      links: [{ from_atom: 1, to_atom: 2, created_at: ms('2023-05-08T09:00:00.000Z') }],
      types: [{ t: 'integer' }],
    });

    expect(brain.messages.getAgent('nova')).toMatchObject({
      created_at: '2023-05-08T09:00:00.000Z',
      last_seen_at: '2023-05-08T23:59:59.999Z',
    });
    expect(brain.knowledge.getStm('stm_000000000001')).toMatchObject({
      created_at: '2023-05-08T08:00:00.000Z',
      expires_at: '2030-01-01T00:00:00.000Z',
    });
    expect(brain.knowledge.getStm('stm_000000000002')).toMatchObject({ expires_at: null });
    expect(brain.knowledge.getAtom('atm_000000000002')!.created_at).toBe(
      '2023-05-08T09:00:00.000Z',
    );
    expect(brain.knowledge.chain({ atom_id: 'atm_000000000001' }).steps[0]!.link.created_at).toBe(
      '2023-05-08T09:00:00.000Z',
    );
    const acked = brain.messages
      .thread({ thread_id: THREAD })
      .messages.find((m) => m.acks.length > 0)!;
    expect(acked.acks[0]!.created_at).toBe('2023-05-08T09:00:00.000Z');
    // The export writes ISO times, and the doctor finds nothing to mend.
    const doc = brain.transfer.export();
    expect(doc.agents[1]).toMatchObject({ last_seen_at: '2023-05-08T23:59:59.999Z' });
    expect(doc.stm[0]).toMatchObject({ last_accessed_at: '2023-05-10T00:00:00.000Z' });
    expect(doc.atom_links[0]!.created_at).toBe('2023-05-08T09:00:00.000Z');
  });

  it('filters and expires knowledge by its integer times', async () => {
    dir = tempDir();
    const path = join(dir.dir, 'v4.db');
    versionFour(path);
    let now = Date.parse('2026-01-01T00:00:00.000Z');
    brain = await openBrain({ dbPath: path, clock: () => new Date(now) });
    brain.knowledge.remember({
      agent: 'nova',
      content: 'the kiln cools overnight',
      expires_at: '2026-01-02T00:00:00.000Z',
      at: '2025-12-31T00:00:00.000Z',
    });
    const query = { query: 'kiln', types: ['stm' as const] };
    const ids = (input: typeof query & { since?: string; until?: string }) =>
      brain!.search.search(input).hits.map((h) => h.id);
    const fresh = ids({ ...query, since: '2025-12-30' });
    expect(fresh).toHaveLength(1);
    expect(ids({ ...query, since: '2023-01-01', until: '2024-01-01' })).toEqual([
      'stm_000000000001',
    ]);
    expect(brain.knowledge.listStm({ agent: 'nova' })).toHaveLength(2);
    now = Date.parse('2026-01-02T00:00:00.001Z');
    // Expired now: the new entry is left out; the old one (no expiry) stays.
    expect(brain.knowledge.listStm({ agent: 'nova' }).map((s) => s.id)).toEqual([
      'stm_000000000001',
    ]);
    expect(ids(query)).toEqual(['stm_000000000001']);
    expect(ids(query)).not.toContain(fresh[0]);
  });
});
