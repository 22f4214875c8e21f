import { z } from 'zod';
import { isoSql, millisOf, isoNow } from '../clock.js';
import type { BrainContext } from '../context.js';
import { BrainError } from '../errors.js';
import { messageKey, newId, threadIdSql, threadKey } from '../ids.js';
import { ensureAgent } from '../messaging/agents.js';
import {
  MESSAGE_SELECT,
  toMessageRecord,
  type MessageRecord,
  type MessageRow,
} from '../messaging/messages.js';
import { insertThread } from '../messaging/store.js';
import { agentName, messageId, parseInput, text, threadId } from '../validation.js';

/** A session: a name (`chat/default`) and the thread its conversation is in now. */
export interface SessionRecord {
  name: string;
  /** The current thread (`thr_…`); its subject is the session's name. */
  thread_id: string;
  agent: string;
  owner: string;
  /** When the current thread became the session's. */
  created_at: string;
  /** How many threads the session has had, the current one included. */
  threads: number;
}

interface SessionRow extends SessionRecord {
  rowid: number;
  status: string;
}

const SESSION_SELECT = `
  SELECT s.id AS rowid, s.name, ${threadIdSql('t.uid')} AS thread_id, a.name AS agent,
         o.name AS owner, ${isoSql('st.started_at')} AS created_at, t.status,
         (SELECT count(*) FROM session_threads x WHERE x.session_id = s.id) AS threads
  FROM sessions s
  JOIN threads t ON t.id = s.thread_id
  JOIN session_threads st ON st.session_id = s.id AND st.thread_id = s.thread_id
  JOIN agents a ON a.id = s.agent_id
  JOIN agents o ON o.id = s.owner_id`;

function toSessionRecord(row: SessionRow): SessionRecord {
  const { rowid: _rowid, status: _status, ...rest } = row;
  return rest;
}

/** `chat/default`, `telegram/12345`: printable, no spaces at the ends, no control characters. */
export const sessionName = text(200)
  .min(1, 'must not be empty')
  .refine((s) => s.trim() === s, 'must not start or end with spaces')
  // eslint-disable-next-line no-control-regex
  .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), 'must not contain control characters');

const sessionInput = z.strictObject({ name: sessionName, agent: agentName, owner: agentName });
export type SessionInput = z.input<typeof sessionInput>;

function sessionRow(ctx: BrainContext, name: string): SessionRow | undefined {
  return ctx.q.get<[string], SessionRow>(`${SESSION_SELECT} WHERE s.name = ?`).get(name);
}

/**
 * The session called `name`, created with a fresh thread when there is none. An existing session
 * keeps its agent and owner. A session whose thread was closed gets a fresh one, since a closed
 * thread takes no more messages. Writes only when it creates.
 */
export function findOrCreateSession(ctx: BrainContext, input: SessionInput): SessionRecord {
  const args = parseInput(sessionInput, input);
  const found = sessionRow(ctx, args.name);
  if (found && found.status !== 'closed') return toSessionRecord(found);
  return ctx.db
    .transaction(() => {
      // Again inside the write lock: another process may have made it meanwhile.
      const row = sessionRow(ctx, args.name);
      if (row && row.status !== 'closed') return toSessionRecord(row);
      startThread(ctx, args);
      return toSessionRecord(sessionRow(ctx, args.name)!);
    })
    .immediate();
}

/** Point the session `name` at a fresh thread (creating the session if needed); the old one stays. */
export function newSession(ctx: BrainContext, input: SessionInput): SessionRecord {
  const args = parseInput(sessionInput, input);
  return ctx.db
    .transaction(() => {
      startThread(ctx, args);
      return toSessionRecord(sessionRow(ctx, args.name)!);
    })
    .immediate();
}

/** Inside a write transaction: a new empty thread, made the session's current one. */
function startThread(ctx: BrainContext, args: z.output<typeof sessionInput>): void {
  const now = millisOf(isoNow(ctx.clock));
  const agentId = ensureAgent(ctx, args.agent);
  const ownerId = ensureAgent(ctx, args.owner);
  const threadRowId = insertThread(ctx, {
    uid: newId('thread'),
    subject: args.name,
    created_by: agentId,
    created_at: now,
  }).id;
  ctx.q
    .get(
      `INSERT INTO sessions (name, agent_id, owner_id, thread_id, created_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET thread_id = excluded.thread_id`,
    )
    .run(args.name, agentId, ownerId, threadRowId, now);
  const session = ctx.q
    .get<[string], { id: number }>(`SELECT id FROM sessions WHERE name = ?`)
    .get(args.name)!;
  ctx.q
    .get(`INSERT INTO session_threads (session_id, thread_id, started_at) VALUES (?, ?, ?)`)
    .run(session.id, threadRowId, now);
}

const threadSessionInput = sessionInput.extend({ thread_id: threadId });
export type ThreadSessionInput = z.input<typeof threadSessionInput>;

/**
 * The session `name` conducted in an existing thread, `thread_id` (an inbox session answering
 * another agent where it wrote): created so when there is none, moved there when it points at
 * another thread (that one stays in the session's history). The messages already in the thread
 * are the session's. Refused when the thread is another session's. Writes only when it changes.
 */
export function sessionInThread(ctx: BrainContext, input: ThreadSessionInput): SessionRecord {
  const args = parseInput(threadSessionInput, input);
  const found = sessionRow(ctx, args.name);
  if (found && found.thread_id === args.thread_id) return toSessionRecord(found);
  return ctx.db
    .transaction(() => {
      const thread = ctx.q
        .get<[Buffer], { id: number }>(`SELECT id FROM threads WHERE uid = ?`)
        .get(threadKey(args.thread_id)!);
      if (!thread) throw new BrainError('NOT_FOUND', `thread_id: no thread ${args.thread_id}`);
      const owner = ctx.q
        .get<[number], { name: string }>(
          `SELECT s.name FROM session_threads st JOIN sessions s ON s.id = st.session_id
           WHERE st.thread_id = ?`,
        )
        .get(thread.id);
      if (owner && owner.name !== args.name)
        throw new BrainError(
          'CONFLICT',
          `thread_id: ${args.thread_id} is the thread of session ${owner.name}`,
        );
      const now = millisOf(isoNow(ctx.clock));
      const agentId = ensureAgent(ctx, args.agent);
      const ownerId = ensureAgent(ctx, args.owner);
      ctx.q
        .get(
          `INSERT INTO sessions (name, agent_id, owner_id, thread_id, created_at)
           VALUES (?, ?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET thread_id = excluded.thread_id`,
        )
        .run(args.name, agentId, ownerId, thread.id, now);
      const session = ctx.q
        .get<[string], { id: number }>(`SELECT id FROM sessions WHERE name = ?`)
        .get(args.name)!;
      ctx.q
        .get(
          `INSERT INTO session_threads (session_id, thread_id, started_at) VALUES (?, ?, ?)
           ON CONFLICT DO NOTHING`,
        )
        .run(session.id, thread.id, now);
      return toSessionRecord(sessionRow(ctx, args.name)!);
    })
    .immediate();
}

/** Every session, by name. */
export function listSessions(ctx: BrainContext): SessionRecord[] {
  return ctx.q.get<[], SessionRow>(`${SESSION_SELECT} ORDER BY s.name`).all().map(toSessionRecord);
}

/** The session a thread belongs to (now or formerly), if any. */
export function sessionOfThread(ctx: BrainContext, thread: string): SessionRecord | undefined {
  const key = threadKey(thread);
  if (key === undefined) return undefined;
  const row = ctx.q
    .get<[Buffer], SessionRow>(
      `${SESSION_SELECT} WHERE s.id = (SELECT st2.session_id FROM session_threads st2
         JOIN threads t2 ON t2.id = st2.thread_id WHERE t2.uid = ?)`,
    )
    .get(key);
  return row && toSessionRecord(row);
}

const messagesInput = z.strictObject({
  thread_id: threadId,
  /** Only the messages after this one (exclusive), in the thread's order. */
  after: messageId.optional(),
  /** At most this many; all when absent. */
  limit: z.coerce.number().int().min(1).max(1_000_000).optional(),
});
export type SessionMessagesInput = z.input<typeof messagesInput>;

/**
 * The rows of a thread after a position (time, rowid), in order: a range of the thread's index
 * (thread_id, created_at, rowid), so the cost is that of the rows returned (plan test).
 */
export const AFTER_SQL = `SELECT id FROM messages WHERE thread_id = ? AND (created_at, id) > (?, ?)
  ORDER BY created_at, id LIMIT ?`;

/**
 * A thread's messages in order (time, then rowid), after a given message when asked: what the
 * assistant rebuilds its context from. No receipts or acks: a conversation needs none.
 */
export function sessionMessages(ctx: BrainContext, input: SessionMessagesInput): MessageRecord[] {
  const args = parseInput(messagesInput, input);
  const thread = ctx.q
    .get<[Buffer], { id: number }>(`SELECT id FROM threads WHERE uid = ?`)
    .get(threadKey(args.thread_id)!);
  if (!thread) throw new BrainError('NOT_FOUND', `thread_id: no thread ${args.thread_id}`);
  let from = { created_at: Number.MIN_SAFE_INTEGER, id: 0 };
  if (args.after) {
    const after = ctx.q
      .get<[number], { id: number; thread_id: number; created_at: number }>(
        `SELECT id, thread_id, created_at FROM messages WHERE uid = ?`,
      )
      .get(messageKey(args.after)!);
    if (!after) throw new BrainError('NOT_FOUND', `after: no message ${args.after}`);
    if (after.thread_id !== thread.id) {
      throw new BrainError('INVALID_INPUT', `after: ${args.after} is not in ${args.thread_id}`);
    }
    from = after;
  }
  return ctx.q
    .get<[number, number, number, number], MessageRow>(
      `${MESSAGE_SELECT} WHERE m.id IN (${AFTER_SQL}) ORDER BY m.created_at, m.id`,
    )
    .all(thread.id, from.created_at, from.id, args.limit ?? -1)
    .map(toMessageRecord);
}
