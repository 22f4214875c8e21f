import { millisOf } from '../clock.js';
import type { BrainContext } from '../context.js';
import { notifyIndexers } from '../context.js';
import { BrainError } from '../errors.js';
import { messageKey, threadKey } from '../ids.js';
import { formatZodError } from '../validation.js';
import { exportDocument, type ExportDocument } from './format.js';

type Section = 'agents' | 'threads' | 'messages' | 'stm' | 'atoms' | 'atom_links';
export type ImportCounts = Record<Section, number>;

export interface ImportResult {
  /** Rows added. */
  imported: ImportCounts;
  /** Rows already present (same id), left as they were. */
  existing: ImportCounts;
}

const zero = (): ImportCounts => ({
  agents: 0,
  threads: 0,
  messages: 0,
  stm: 0,
  atoms: 0,
  atom_links: 0,
});

/** Validate a whole export document, then add what is new in one transaction: all or nothing. */
export function importBrain(ctx: BrainContext, input: unknown): ImportResult {
  const parsed = exportDocument.safeParse(input);
  if (!parsed.success)
    throw new BrainError('INVALID_INPUT', `import: ${formatZodError(parsed.error)}`);
  const doc = parsed.data;
  // The same limit as send: an import must not store what the brain would refuse to be sent.
  doc.messages.forEach((m, i) => {
    const bytes = Buffer.byteLength(m.body, 'utf8');
    if (bytes > ctx.limits.maxBodyBytes)
      throw new BrainError(
        'INVALID_INPUT',
        `import: messages.${i}.body: is ${bytes} bytes; the limit is ${ctx.limits.maxBodyBytes} (BRAIN_MAX_BODY_BYTES)`,
      );
  });
  return ctx.db.transaction(() => importDocument(ctx, doc)).immediate();
}

function importDocument(ctx: BrainContext, doc: ExportDocument): ImportResult {
  const imported = zero();
  const existing = zero();
  const count = (section: Section, changes: number) => {
    if (changes > 0) imported[section] += 1;
    else existing[section] += 1;
  };
  const agentId = (name: string, where: string): number => {
    const row = ctx.q
      .get<[string], { id: number }>(`SELECT id FROM agents WHERE name = ?`)
      .get(name);
    if (!row)
      throw new BrainError(
        'INVALID_INPUT',
        `import: ${where} names agent ${name}, which is not in the file`,
      );
    return row.id;
  };
  const rowId = (table: 'threads' | 'messages' | 'atoms', uid: string, where: string): number => {
    // Messages keep the number their id spells (migration 0005), threads their UUID's bytes (0006).
    const key =
      table === 'messages' ? messageKey(uid)! : table === 'threads' ? threadKey(uid)! : uid;
    const row = ctx.q
      .get<[string | number | Buffer], { id: number }>(`SELECT id FROM ${table} WHERE uid = ?`)
      .get(key);
    if (!row)
      throw new BrainError(
        'INVALID_INPUT',
        `import: ${where} refers to ${uid}, which is not in the file`,
      );
    return row.id;
  };

  for (const a of doc.agents) {
    count(
      'agents',
      ctx.q
        .get(
          `INSERT INTO agents (name, display_name, capabilities, created_at, last_seen_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT(name) DO NOTHING`,
        )
        .run(a.name, a.display_name, JSON.stringify(a.capabilities), a.created_at, a.last_seen_at)
        .changes,
    );
  }

  const touchedThreads = new Set<number>();
  for (const t of doc.threads) {
    const changes = ctx.q
      .get(
        `INSERT INTO threads (uid, subject, status, created_by, created_at, last_message_at, message_count)
         VALUES (?, ?, ?, ?, ?, ?, 0) ON CONFLICT(uid) DO NOTHING`,
      )
      .run(
        threadKey(t.id),
        t.subject,
        t.status,
        agentId(t.created_by, `thread ${t.id}`),
        millisOf(t.created_at),
        millisOf(t.last_message_at),
      ).changes;
    count('threads', changes);
    const id = rowId('threads', t.id, 'thread');
    for (const tag of t.tags)
      ctx.q.get(`INSERT OR IGNORE INTO thread_tags (thread_id, tag) VALUES (?, ?)`).run(id, tag);
  }

  for (const m of doc.messages) {
    const where = `message ${m.id}`;
    const threadRow = rowId('threads', m.thread_id, where);
    const changes = ctx.q
      .get(
        `INSERT INTO messages (uid, thread_id, from_agent, to_agent, reply_to, priority, subject, body, metadata, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(uid) DO NOTHING`,
      )
      .run(
        messageKey(m.id),
        threadRow,
        agentId(m.from, where),
        m.to === null ? null : agentId(m.to, where),
        m.reply_to === null ? null : rowId('messages', m.reply_to, where),
        m.priority,
        m.subject,
        m.body,
        m.metadata && Object.keys(m.metadata).length > 0 ? JSON.stringify(m.metadata) : null,
        millisOf(m.created_at),
      ).changes;
    count('messages', changes);
    const rowid = rowId('messages', m.id, where);
    if (changes > 0) {
      touchedThreads.add(threadRow);
      notifyIndexers(ctx, { type: 'message', rowid });
    }
    for (const r of m.receipts) {
      ctx.q
        .get(`INSERT OR IGNORE INTO deliveries (message_id, agent_id, read_at) VALUES (?, ?, ?)`)
        .run(rowid, agentId(r.agent, where), r.read_at === null ? null : millisOf(r.read_at));
    }
    for (const k of m.acks) {
      ctx.q
        .get(
          `INSERT OR IGNORE INTO acks (message_id, agent_id, body, created_at) VALUES (?, ?, ?, ?)`,
        )
        .run(rowid, agentId(k.agent, where), k.body, k.created_at);
    }
  }

  for (const s of doc.stm) {
    const where = `STM entry ${s.id}`;
    const changes = ctx.q
      .get(
        `INSERT INTO stm (uid, agent_id, content, importance, source_message_id, created_at, expires_at, access_count, last_accessed_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(uid) DO NOTHING`,
      )
      .run(
        s.id,
        agentId(s.agent, where),
        s.content,
        s.importance,
        s.source_message_id === null ? null : rowId('messages', s.source_message_id, where),
        s.created_at,
        s.expires_at,
        s.access_count,
        s.last_accessed_at,
      ).changes;
    count('stm', changes);
    if (changes > 0) {
      const rowid = ctx.q
        .get<[string], { id: number }>(`SELECT id FROM stm WHERE uid = ?`)
        .get(s.id)!.id;
      for (const c of s.categories)
        ctx.q
          .get(`INSERT OR IGNORE INTO stm_categories (stm_id, category) VALUES (?, ?)`)
          .run(rowid, c);
      notifyIndexers(ctx, { type: 'stm', rowid });
    }
  }

  for (const a of doc.atoms) {
    const where = `atom ${a.id}`;
    const changes = ctx.q
      .get(
        `INSERT INTO atoms (uid, agent_id, subject, action, outcome, consequences, confidence, source_message_id, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(uid) DO NOTHING`,
      )
      .run(
        a.id,
        agentId(a.agent, where),
        a.subject,
        a.action,
        a.outcome,
        a.consequences,
        a.confidence,
        a.source_message_id === null ? null : rowId('messages', a.source_message_id, where),
        a.created_at,
      ).changes;
    count('atoms', changes);
    if (changes > 0) notifyIndexers(ctx, { type: 'atom', rowid: rowId('atoms', a.id, where) });
  }

  for (const l of doc.atom_links) {
    const where = `link ${l.from} → ${l.to}`;
    if (l.from === l.to)
      throw new BrainError('INVALID_INPUT', `import: ${where} links an atom to itself`);
    count(
      'atom_links',
      ctx.q
        .get(
          `INSERT OR IGNORE INTO atom_links (from_atom, to_atom, link_type, strength, created_at) VALUES (?, ?, ?, ?, ?)`,
        )
        .run(
          rowId('atoms', l.from, where),
          rowId('atoms', l.to, where),
          l.type,
          l.strength,
          l.created_at,
        ).changes,
    );
  }

  const recount = ctx.q.get(
    `UPDATE threads SET message_count = (SELECT count(*) FROM messages WHERE thread_id = @id),
       last_message_at = max(last_message_at, coalesce((SELECT max(created_at) FROM messages WHERE thread_id = @id), last_message_at))
     WHERE id = @id`,
  );
  for (const id of touchedThreads) recount.run({ id });
  return { imported, existing };
}
