import { writeAttachments, type PreparedAttachment } from '../attachments/store.js';
import { importedAttachments } from '../attachments/transfer.js';
import { millisOf } from '../clock.js';
import type { BrainContext } from '../context.js';
import { BrainError } from '../errors.js';
import { messageKey, threadKey } from '../ids.js';
import { formatZodError } from '../validation.js';
import { addStmSource, insertAtom, insertLink, insertStm } from '../knowledge/store.js';
import {
  addThreadTags,
  insertAck,
  insertDeliveries,
  insertMessage,
  insertThread,
  writeAgent,
} from '../messaging/store.js';
import { assistantSections, type AssistantSection } from './assistant-format.js';
import { exportDocument, exportHeader, type ImportDocument } from './format.js';
import { importAssistant } from './import-assistant.js';

type Section =
  'agents' | 'threads' | 'messages' | 'stm' | 'atoms' | 'atom_links' | AssistantSection;
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
  ...(Object.fromEntries(Object.keys(assistantSections).map((k) => [k, 0])) as Record<
    AssistantSection,
    number
  >),
});

/**
 * Validate a whole export document (this version or an older one), then add what is new in one
 * transaction: all or nothing.
 */
export function importBrain(ctx: BrainContext, input: unknown, dbPath = ''): ImportResult {
  const header = exportHeader.safeParse(input);
  if (!header.success)
    throw new BrainError('INVALID_INPUT', `import: ${formatZodError(header.error)}`);
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
  // Files are checked, and large ones written beside the brain, before the transaction.
  const files = new Map<string, PreparedAttachment[]>();
  doc.messages.forEach((m, i) => {
    if (m.attachments?.length)
      files.set(m.id, importedAttachments(ctx, dbPath, m.attachments, `messages.${i}`));
  });
  return ctx.db.transaction(() => importDocument(ctx, doc, files)).immediate();
}

function importDocument(
  ctx: BrainContext,
  doc: ImportDocument,
  files: ReadonlyMap<string, PreparedAttachment[]>,
): ImportResult {
  const imported = zero();
  const existing = zero();
  const count = (section: Section, added: boolean) => {
    if (added) imported[section] += 1;
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
    const { added } = writeAgent(ctx, {
      name: a.name,
      display_name: a.display_name,
      capabilities: a.capabilities,
      at: millisOf(a.created_at),
      last_seen_at: millisOf(a.last_seen_at),
    });
    count('agents', added);
  }

  for (const t of doc.threads) {
    const thread = insertThread(ctx, {
      uid: t.id,
      subject: t.subject,
      status: t.status,
      created_by: agentId(t.created_by, `thread ${t.id}`),
      created_at: millisOf(t.created_at),
      last_message_at: millisOf(t.last_message_at),
    });
    count('threads', thread.added);
    addThreadTags(ctx, thread.id, t.tags);
  }

  for (const m of doc.messages) {
    const where = `message ${m.id}`;
    const thread = rowId('threads', m.thread_id, where);
    const from = agentId(m.from, where);
    const to = m.to === null ? null : agentId(m.to, where);
    const replyTo = m.reply_to === null ? null : rowId('messages', m.reply_to, where);
    const receipts = m.receipts.map((r) => ({
      agent_id: agentId(r.agent, where),
      read_at: r.read_at === null ? null : millisOf(r.read_at),
    }));
    const written = insertMessage(ctx, {
      uid: m.id,
      thread_id: thread,
      from_agent: from,
      to_agent: to,
      reply_to: replyTo,
      priority: m.priority,
      subject: m.subject,
      body: m.body,
      metadata: m.metadata,
      created_at: millisOf(m.created_at),
      recipients: receipts,
    });
    count('messages', written.added);
    if (written.added)
      writeAttachments(ctx, written.rowid, files.get(m.id) ?? [], millisOf(m.created_at));
    // A message already here still gains the receipts and acks the file adds to it.
    if (!written.added) insertDeliveries(ctx, written.rowid, receipts);
    for (const k of m.acks) {
      insertAck(ctx, {
        message_id: written.rowid,
        agent_id: agentId(k.agent, where),
        body: k.body,
        created_at: millisOf(k.created_at),
      });
    }
  }

  for (const s of doc.stm) {
    const where = `STM entry ${s.id}`;
    const rowid = insertStm(ctx, {
      uid: s.id,
      agent_id: agentId(s.agent, where),
      content: s.content,
      importance: s.importance,
      source_message_id:
        s.source_message_id === null ? null : rowId('messages', s.source_message_id, where),
      created_at: millisOf(s.created_at),
      expires_at: s.expires_at === null ? null : millisOf(s.expires_at),
      access_count: s.access_count,
      last_accessed_at: s.last_accessed_at === null ? null : millisOf(s.last_accessed_at),
      categories: s.categories,
      extractor: s.extractor ?? null,
      about: s.about ?? null,
      occurred_at: s.occurred_at == null ? null : millisOf(s.occurred_at),
    });
    count('stm', rowid !== undefined);
    if (rowid === undefined) continue;
    // Sources beyond the first, when their messages are in the brain (an export of some threads
    // may leave a fact's other sources out).
    for (const source of s.sources ?? []) {
      const message = messageKey(source.message_id);
      const found = ctx.q
        .get<[number], { id: number }>(`SELECT id FROM messages WHERE uid = ?`)
        .get(message!);
      const readFrom = source.read_from
        ? ctx.q
            .get<[number], { id: number }>(`SELECT id FROM messages WHERE uid = ?`)
            .get(messageKey(source.read_from)!)?.id
        : undefined;
      if (found)
        addStmSource(ctx, rowid, {
          message: found.id,
          extractor: source.extractor,
          readFrom: readFrom ?? null,
          at: millisOf(s.created_at),
        });
    }
  }
  // What superseded what, once every entry is in.
  for (const s of doc.stm) {
    if (!s.superseded_by) continue;
    ctx.q
      .get(
        `UPDATE stm SET superseded_by = (SELECT id FROM stm WHERE uid = ?)
         WHERE uid = ? AND superseded_by IS NULL`,
      )
      .run(s.superseded_by, s.id);
  }

  for (const a of doc.atoms) {
    const where = `atom ${a.id}`;
    const rowid = insertAtom(ctx, {
      uid: a.id,
      agent_id: agentId(a.agent, where),
      subject: a.subject,
      action: a.action,
      outcome: a.outcome,
      consequences: a.consequences,
      confidence: a.confidence,
      source_message_id:
        a.source_message_id === null ? null : rowId('messages', a.source_message_id, where),
      created_at: millisOf(a.created_at),
      occurred_at: a.occurred_at == null ? null : millisOf(a.occurred_at),
    });
    count('atoms', rowid !== undefined);
  }

  for (const l of doc.atom_links) {
    const where = `link ${l.from} → ${l.to}`;
    if (l.from === l.to)
      throw new BrainError('INVALID_INPUT', `import: ${where} links an atom to itself`);
    const added = insertLink(ctx, {
      from_atom: rowId('atoms', l.from, where),
      to_atom: rowId('atoms', l.to, where),
      type: l.type,
      strength: l.strength,
      created_at: millisOf(l.created_at),
    });
    count('atom_links', added);
  }

  // Version 1 files hold no assistant state.
  if (doc.version === 2)
    importAssistant(
      ctx,
      doc,
      {
        agent: agentId,
        thread: (id, where) => rowId('threads', id, where),
        message: (id, where) => rowId('messages', id, where),
      },
      count,
    );
  return { imported, existing };
}
