import { millisOf } from '../clock.js';
import type { BrainContext } from '../context.js';
import { BrainError } from '../errors.js';
import { ID_PATTERNS, derivedId } from '../ids.js';
import { ensureAgent } from '../messaging/agents.js';
import { excerpt, messageRowId } from '../messaging/messages.js';
import { insertAck, insertMessage, insertThread, markRead } from '../messaging/store.js';
import { readJsonFile } from '../transfer/json-file.js';
import { agentName, filePath, parseInput, type Priority } from '../validation.js';
import {
  legacyTime,
  nameList,
  pick,
  pickString,
  type LegacyReport,
  type Loose,
  type SkippedRecord,
} from './fields.js';

const BROADCAST = new Set(['', '*', 'all', 'broadcast', 'everyone', '@all']);
const PRIORITY: Record<string, Priority> = {
  info: 'info',
  low: 'info',
  fyi: 'info',
  normal: 'normal',
  medium: 'normal',
  default: 'normal',
  action: 'action',
  high: 'action',
  important: 'action',
  urgent: 'urgent',
  critical: 'urgent',
  emergency: 'urgent',
};

interface LegacyMessage {
  index: number;
  legacyId: string;
  uid: string;
  from: string;
  to: string | null;
  subject: string;
  body: string;
  priority: Priority;
  threadKey: string;
  replyKey: string | undefined;
  createdAt: string;
  readBy: Map<string, string | null>;
  acked: boolean;
  ackBody: string | null;
  ackedBy: string[];
  metadata: Loose;
}

/** Import a SYNAPSE synapse.json. Tolerant in what it reads, strict in what it stores; safe to run twice. */
export function migrateSynapse(ctx: BrainContext, path: string): LegacyReport {
  parseInput(filePath, path, { '': 'synapse' });
  const doc = readJsonFile(path, 'synapse');
  const list = Array.isArray(doc) ? doc : (doc as Loose | null)?.messages;
  if (!Array.isArray(list))
    throw new BrainError('INVALID_INPUT', `synapse: ${path} has no "messages" array`);

  const skipped: SkippedRecord[] = [];
  const notes: string[] = [];
  const parsed: LegacyMessage[] = [];
  list.forEach((record, index) => {
    const result = normalize(record, index, ctx.limits.maxBodyBytes);
    if ('reason' in result) skipped.push(result);
    else parsed.push(result);
  });
  parsed.sort((a, b) =>
    a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.index - b.index,
  );
  const byLegacyId = new Map(parsed.map((m) => [m.legacyId, m]));

  let imported = 0;
  let existing = 0;
  ctx.db
    .transaction(() => {
      const agentIds = new Map<string, number>();
      const agent = (name: string) => {
        let id = agentIds.get(name);
        if (id === undefined) agentIds.set(name, (id = ensureAgent(ctx, name)));
        return id;
      };
      // Everyone the file mentions exists before the first broadcast is delivered.
      for (const m of parsed)
        for (const n of [m.from, m.to, ...m.readBy.keys(), ...m.ackedBy]) if (n) agent(n);
      const everyone = [...agentIds.entries()];

      for (const m of parsed) {
        const at = millisOf(m.createdAt);
        const threadUid = ID_PATTERNS.thread.test(m.threadKey)
          ? m.threadKey
          : derivedId('thread', `synapse:${m.threadKey}`);
        const thread = insertThread(ctx, {
          uid: threadUid,
          subject: m.subject || excerpt(m.body),
          created_by: agent(m.from),
          created_at: at,
        }).id;
        let replyTo: number | null = null;
        if (m.replyKey) {
          const parent = byLegacyId.get(m.replyKey);
          const parentUid =
            parent?.uid ?? (ID_PATTERNS.message.test(m.replyKey) ? m.replyKey : undefined);
          replyTo = parentUid ? (messageRowId(ctx, parentUid) ?? null) : null;
          if (replyTo === null)
            notes.push(
              `message ${m.legacyId}: replies to ${m.replyKey}, which is not in the file; kept without the link`,
            );
        }
        const recipients = (
          m.to ? [m.to] : everyone.map(([name]) => name).filter((n) => n !== m.from)
        ).map((r) => {
          const read = m.readBy.has(r) ? (m.readBy.get(r) ?? m.createdAt) : null;
          return { agent_id: agent(r), read_at: read === null ? null : millisOf(read) };
        });
        const written = insertMessage(ctx, {
          uid: m.uid,
          thread_id: thread,
          from_agent: agent(m.from),
          to_agent: m.to ? agent(m.to) : null,
          reply_to: replyTo,
          priority: m.priority,
          subject: m.subject || null,
          body: m.body,
          metadata: { ...m.metadata, legacy_id: m.legacyId, legacy_source: 'synapse' },
          created_at: at,
          recipients,
        });
        if (!written.added) {
          existing += 1;
          continue;
        }
        imported += 1;
        const ackers = m.ackedBy.length ? m.ackedBy : m.acked && m.to ? [m.to] : [];
        if (m.acked && ackers.length === 0)
          notes.push(
            `message ${m.legacyId}: ack body kept in metadata (no acknowledging agent named)`,
          );
        for (const a of ackers) {
          insertAck(ctx, {
            message_id: written.rowid,
            agent_id: agent(a),
            body: m.ackBody,
            created_at: millisOf(m.readBy.get(a) ?? m.createdAt),
          });
          markRead(ctx, written.rowid, agent(a), at);
        }
      }
    })
    .immediate();
  return { source: 'synapse', path, read: list.length, imported, existing, skipped, notes };
}

function normalize(
  record: unknown,
  index: number,
  maxBodyBytes: number,
): LegacyMessage | SkippedRecord {
  if (!record || typeof record !== 'object' || Array.isArray(record))
    return { index, reason: 'not an object' };
  const r = record as Loose;
  const rawId = pickString(r, ['id', 'message_id', 'messageId', 'uid']);
  const skip = (reason: string): SkippedRecord => ({
    index,
    ...(rawId ? { id: rawId } : {}),
    reason,
  });

  const from = pickString(r, ['from', 'from_agent', 'fromAgent', 'sender', 'author'])?.trim();
  if (!from) return skip('no sender (from)');
  if (!agentName.safeParse(from).success)
    return skip(`sender ${JSON.stringify(from)} is not a valid agent name`);

  const rawTo = pick(r, ['to', 'to_agent', 'toAgent', 'recipient', 'recipients']);
  let to: string | null = null;
  if (Array.isArray(rawTo)) {
    const names = nameList(rawTo);
    if (names.length > 1) return skip('several recipients in one message are not supported');
    to = names[0] ?? null;
  } else if (typeof rawTo === 'string') {
    to = rawTo.trim();
  } else if (rawTo !== undefined) {
    return skip('recipient (to) is neither a name nor empty');
  }
  if (to !== null && BROADCAST.has(to.toLowerCase())) to = null;
  if (to !== null && !agentName.safeParse(to).success)
    return skip(`recipient ${JSON.stringify(to)} is not a valid agent name`);

  const body = pickString(r, ['body', 'content', 'text', 'message']);
  if (body === undefined || !body.trim()) return skip('no body');
  if (body.includes('\0') || !body.isWellFormed())
    return skip('body has NUL characters or invalid Unicode');
  const bytes = Buffer.byteLength(body, 'utf8');
  if (bytes > maxBodyBytes)
    return skip(`body is ${bytes} bytes; the limit is ${maxBodyBytes} (BRAIN_MAX_BODY_BYTES)`);

  const createdAt = legacyTime(
    pick(r, ['timestamp', 'created_at', 'createdAt', 'sent_at', 'sentAt', 'time', 'date', 'ts']),
  );
  if (!createdAt) return skip('no valid timestamp');

  const rawPriority = pickString(r, ['priority', 'level'])?.trim().toLowerCase();
  const priority = rawPriority === undefined ? 'normal' : PRIORITY[rawPriority];
  if (!priority) return skip(`unknown priority ${JSON.stringify(rawPriority)}`);

  const subject = (pickString(r, ['subject', 'title', 'topic']) ?? '').trim().slice(0, 500);
  const legacyId = rawId ?? `${from}|${createdAt}|${body.slice(0, 200)}`;
  const uid = ID_PATTERNS.message.test(legacyId)
    ? legacyId
    : derivedId('message', `synapse:${legacyId}`);
  const threadKey =
    pickString(r, ['thread', 'thread_id', 'threadId', 'conversation', 'conversation_id'])?.trim() ||
    (subject
      ? `subject:${subject.replace(/^((re|fwd?|aw)\s*:\s*)+/i, '').toLowerCase()}`
      : `message:${legacyId}`);

  const readBy = new Map<string, string | null>();
  const rawRead = pick(r, ['read_by', 'readBy', 'read']);
  if (rawRead && typeof rawRead === 'object' && !Array.isArray(rawRead)) {
    for (const [name, at] of Object.entries(rawRead as Loose))
      readBy.set(name, legacyTime(at) ?? null);
  } else {
    for (const name of nameList(rawRead)) readBy.set(name, null);
  }
  for (const name of readBy.keys()) {
    if (!agentName.safeParse(name).success || name === from) readBy.delete(name);
  }

  const ackRaw = pick(r, ['ack_body', 'ackBody', 'ack']);
  const acked =
    (typeof ackRaw === 'string' && ackRaw.length > 0) ||
    ackRaw === true ||
    Boolean(pick(r, ['acked', 'acked_at', 'ackedAt']));
  const ackBody = typeof ackRaw === 'string' && ackRaw.length > 0 ? ackRaw : null;
  const ackedBy = nameList(pick(r, ['acked_by', 'ackedBy', 'ack_by'])).filter(
    (n) => agentName.safeParse(n).success,
  );
  const meta = pick(r, ['metadata', 'meta']);
  const metadata: Loose =
    meta && typeof meta === 'object' && !Array.isArray(meta) ? { ...(meta as Loose) } : {};
  if (ackBody !== null && ackedBy.length === 0 && to === null) metadata.legacy_ack_body = ackBody;

  return {
    index,
    legacyId,
    uid,
    from,
    to,
    subject,
    body,
    priority,
    threadKey,
    replyKey: pickString(r, [
      'reply_to',
      'replyTo',
      'in_reply_to',
      'inReplyTo',
      'parent',
      'parent_id',
    ]),
    createdAt,
    readBy,
    acked: acked || ackedBy.length > 0,
    ackBody,
    ackedBy,
    metadata,
  };
}
