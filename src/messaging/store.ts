import type { BrainContext } from '../context.js';
import { notifyIndexers } from '../context.js';
import { messageKey, threadKey } from '../ids.js';
import type { Priority, ThreadStatus } from '../validation.js';

/*
 * The one place agents, threads, messages, their deliveries and acks are written. Sending,
 * importing an export and migrating from SYNAPSE each turn their input into these arguments.
 * Each function runs inside its caller's write transaction, checks nothing its caller already
 * checked, and takes times as milliseconds since 1970 (UTC).
 */

export interface AgentWrite {
  name: string;
  /** When the agent is met: a new agent's created_at and last_seen_at (ms). */
  at: number;
  /** The agent is active now: an existing agent's last_seen_at becomes `at` as well. */
  seen?: boolean;
  /** A new agent's other fields, as an export gives them. */
  display_name?: string | null;
  capabilities?: string[];
  last_seen_at?: number;
}

/** An agent's row id, registering it when new (`added`). */
export function writeAgent(ctx: BrainContext, agent: AgentWrite): { id: number; added: boolean } {
  // In the usual case (the agent exists) one statement, not an insert that does nothing and a select.
  const found = agent.seen
    ? ctx.q
        .get<[number, string], { id: number }>(
          `UPDATE agents SET last_seen_at = ? WHERE name = ? RETURNING id`,
        )
        .get(agent.at, agent.name)
    : ctx.q.get<[string], { id: number }>(`SELECT id FROM agents WHERE name = ?`).get(agent.name);
  if (found) return { id: found.id, added: false };
  const id = ctx.q
    .get(
      `INSERT INTO agents (name, display_name, capabilities, created_at, last_seen_at) VALUES (?, ?, ?, ?, ?)`,
    )
    .run(
      agent.name,
      agent.display_name ?? null,
      JSON.stringify(agent.capabilities ?? []),
      agent.at,
      agent.last_seen_at ?? agent.at,
    ).lastInsertRowid;
  return { id: Number(id), added: true };
}

export interface ThreadWrite {
  uid: string;
  subject: string;
  status?: ThreadStatus;
  created_by: number;
  created_at: number;
  /** Defaults to created_at; each message added later moves it forward. */
  last_message_at?: number;
}

/** A thread's row id, adding it unless one with its id exists (`added`). It starts with no messages. */
export function insertThread(
  ctx: BrainContext,
  thread: ThreadWrite,
): { id: number; added: boolean } {
  const key = threadKey(thread.uid)!;
  const result = ctx.q
    .get(
      `INSERT INTO threads (uid, subject, status, created_by, created_at, last_message_at, message_count)
       VALUES (?, ?, ?, ?, ?, ?, 0) ON CONFLICT(uid) DO NOTHING`,
    )
    .run(
      key,
      thread.subject,
      thread.status ?? 'active',
      thread.created_by,
      thread.created_at,
      thread.last_message_at ?? thread.created_at,
    );
  if (result.changes > 0) return { id: Number(result.lastInsertRowid), added: true };
  const row = ctx.q.get<[Buffer], { id: number }>(`SELECT id FROM threads WHERE uid = ?`).get(key)!;
  return { id: row.id, added: false };
}

export function addThreadTags(ctx: BrainContext, threadRow: number, tags: readonly string[]): void {
  if (tags.length === 0) return;
  const add = ctx.q.get(`INSERT OR IGNORE INTO thread_tags (thread_id, tag) VALUES (?, ?)`);
  for (const tag of tags) add.run(threadRow, tag);
}

/** A recipient of a message, and when it read it (ms), if it has. */
export interface Recipient {
  agent_id: number;
  read_at: number | null;
}

export interface MessageWrite {
  uid: string;
  thread_id: number;
  from_agent: number;
  /** null: a broadcast. */
  to_agent: number | null;
  reply_to: number | null;
  priority: Priority;
  /** null: the thread's subject. */
  subject: string | null;
  body: string;
  /** Stored only when it has a key. */
  metadata: Record<string, unknown> | null;
  created_at: number;
  /** Who receives it, or `everyone`: every agent the brain knows but the sender. */
  recipients: readonly Recipient[] | 'everyone';
  /** Whether a message sent into an archived thread makes it active again (sending does). */
  reopen?: boolean;
}

export interface MessageWritten {
  rowid: number;
  /** false: a message with this id was there already, and nothing was written. */
  added: boolean;
  /** Deliveries made. */
  recipients: number;
}

/**
 * Add a message with its deliveries, count it in its thread (and move the thread's last time),
 * and tell the indexers. A message whose id exists is left as it is.
 */
export function insertMessage(ctx: BrainContext, message: MessageWrite): MessageWritten {
  const key = messageKey(message.uid)!;
  const metadata =
    message.metadata && Object.keys(message.metadata).length > 0
      ? JSON.stringify(message.metadata)
      : null;
  const result = ctx.q
    .get(
      `INSERT INTO messages (uid, thread_id, from_agent, to_agent, reply_to, priority, subject, body, metadata, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(uid) DO NOTHING`,
    )
    .run(
      key,
      message.thread_id,
      message.from_agent,
      message.to_agent,
      message.reply_to,
      message.priority,
      message.subject,
      message.body,
      metadata,
      message.created_at,
    );
  if (result.changes === 0) {
    const row = ctx.q
      .get<[number], { id: number }>(`SELECT id FROM messages WHERE uid = ?`)
      .get(key)!;
    return { rowid: row.id, added: false, recipients: 0 };
  }
  const rowid = Number(result.lastInsertRowid);
  const recipients =
    message.recipients === 'everyone'
      ? ctx.q
          .get(
            `INSERT INTO deliveries (message_id, agent_id) SELECT ?, id FROM agents WHERE id <> ?`,
          )
          .run(rowid, message.from_agent).changes
      : insertDeliveries(ctx, rowid, message.recipients);
  ctx.q
    .get(
      `UPDATE threads SET message_count = message_count + 1,
         last_message_at = max(last_message_at, ?),
         status = CASE WHEN ? AND status = 'archived' THEN 'active' ELSE status END
       WHERE id = ?`,
    )
    .run(message.created_at, message.reopen ? 1 : 0, message.thread_id);
  notifyIndexers(ctx, { type: 'message', rowid });
  return { rowid, added: true, recipients };
}

/** Deliver a message to these agents; a delivery already there is kept. How many were added. */
export function insertDeliveries(
  ctx: BrainContext,
  messageRow: number,
  recipients: readonly Recipient[],
): number {
  const deliver = ctx.q.get(
    `INSERT OR IGNORE INTO deliveries (message_id, agent_id, read_at) VALUES (?, ?, ?)`,
  );
  let added = 0;
  for (const r of recipients) added += deliver.run(messageRow, r.agent_id, r.read_at).changes;
  return added;
}

/** Mark a message read by an agent at `at` (ms), unless it read it before; whether it was unread. */
export function markRead(
  ctx: BrainContext,
  messageRow: number,
  agentId: number,
  at: number,
): boolean {
  const { changes } = ctx.q
    .get(
      `UPDATE deliveries SET read_at = ? WHERE message_id = ? AND agent_id = ? AND read_at IS NULL`,
    )
    .run(at, messageRow, agentId);
  return changes > 0;
}

export interface AckWrite {
  message_id: number;
  agent_id: number;
  body: string | null;
  created_at: number;
}

/** Record an agent's ack of a message; the first ack stands. Whether this one was added. */
export function insertAck(ctx: BrainContext, ack: AckWrite): boolean {
  return (
    ctx.q
      .get(
        `INSERT OR IGNORE INTO acks (message_id, agent_id, body, created_at) VALUES (?, ?, ?, ?)`,
      )
      .run(ack.message_id, ack.agent_id, ack.body, ack.created_at).changes > 0
  );
}
