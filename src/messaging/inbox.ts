// Reading an inbox, marking read and acknowledging. Free of zod (the input kit checks), so a
// one-shot `brain read` or `brain inbox` loads this without it.
import { recordsWithAttachments } from '../attachments/store.js';
import { isoSql } from '../clock.js';
import type { BrainContext } from '../context.js';
import { BrainError } from '../errors.js';
import { check, object, type InputOf, type OutputOf } from '../input/check.js';
import { agentName, count, id, text } from '../input/fields.js';
import {
  MESSAGE_SELECT,
  toMessageRecord,
  type MessageRecord,
  type MessageRow,
} from './message-rows.js';
import { messageRowId } from './messages.js';
import { agentRowId } from './row-ids.js';
import { insertAck, markRead, writeAgent } from './store.js';
import type { AckRecord } from './threads.js';

export { acksFor, type AckRecord } from './threads.js';

export const inboxInput = object({
  agent: agentName().describe('Whose inbox'),
  limit: count(1, 1000).default(50).describe('At most this many'),
});
export type InboxInput = InputOf<typeof inboxInput>;
/** An inbox read's input once checked. */
export type InboxArgs = OutputOf<typeof inboxInput>;

const UNREAD_SQL = `${MESSAGE_SELECT}
  WHERE m.id IN (SELECT message_id FROM deliveries WHERE agent_id = ? AND read_at IS NULL ORDER BY message_id LIMIT ?)
  ORDER BY m.id`;

/** The agent's unread messages, oldest first, without marking them read. */
export function peekInbox(ctx: BrainContext, input: InboxInput): MessageRecord[] {
  const args = check(inboxInput, input);
  const agentId = agentRowId(ctx, args.agent);
  if (agentId === undefined) return [];
  const rows = ctx.q.get<[number, number], MessageRow>(UNREAD_SQL).all(agentId, args.limit);
  return recordsWithAttachments(ctx, rows, toMessageRecord);
}

/** Return the agent's unread messages and mark exactly those read, in one transaction. */
export function readInbox(ctx: BrainContext, input: InboxInput): MessageRecord[] {
  const args = check(inboxInput, input);
  const tx = ctx.db.transaction((): MessageRecord[] => {
    const agentId = agentRowId(ctx, args.agent);
    if (agentId === undefined) return [];
    const rows = ctx.q.get<[number, number], MessageRow>(UNREAD_SQL).all(agentId, args.limit);
    const now = ctx.clock().getTime();
    for (const row of rows) markRead(ctx, row.rowid, agentId, now);
    return recordsWithAttachments(ctx, rows, toMessageRecord);
  });
  return tx.immediate();
}

export const markReadInput = object({ message_id: id('message'), agent: agentName() });
export type MarkReadInput = InputOf<typeof markReadInput>;

/**
 * Mark one message read for one agent (an assistant that answers it, say); whether it was unread.
 * An agent the message was not delivered to has nothing to mark.
 */
export function markMessageRead(ctx: BrainContext, input: MarkReadInput): boolean {
  const args = check(markReadInput, input);
  const tx = ctx.db.transaction((): boolean => {
    const messageRow = messageRowId(ctx, args.message_id);
    if (messageRow === undefined)
      throw new BrainError('NOT_FOUND', `message_id: no message ${args.message_id}`);
    const agentId = agentRowId(ctx, args.agent);
    if (agentId === undefined) return false;
    return markRead(ctx, messageRow, agentId, ctx.clock().getTime());
  });
  return tx.immediate();
}

export const ackInput = object({
  message_id: id('message').describe('The message (syn_…)'),
  agent: agentName().describe('Who acknowledges'),
  body: text(10_000).optional().describe('A short answer kept with the ack'),
});
export type AckInput = InputOf<typeof ackInput>;

export interface AckResult extends AckRecord {
  /** false when the agent had already acknowledged the message (the first ack stands). */
  created: boolean;
}

/** Acknowledge a message (idempotent: the first ack stands); also marks it read for the agent. */
export function ackMessage(ctx: BrainContext, input: AckInput): AckResult {
  const args = check(ackInput, input);
  const tx = ctx.db.transaction((): AckResult => {
    const messageRow = messageRowId(ctx, args.message_id);
    if (messageRow === undefined)
      throw new BrainError('NOT_FOUND', `message_id: no message ${args.message_id}`);
    const now = ctx.clock().getTime();
    const agentId = writeAgent(ctx, { name: args.agent, at: now }).id;
    const created = insertAck(ctx, {
      message_id: messageRow,
      agent_id: agentId,
      body: args.body ?? null,
      created_at: now,
    });
    markRead(ctx, messageRow, agentId, now);
    const ack = ctx.q
      .get<[number, number], { body: string | null; created_at: string }>(
        `SELECT body, ${isoSql('created_at')} AS created_at FROM acks WHERE message_id = ? AND agent_id = ?`,
      )
      .get(messageRow, agentId)!;
    return {
      message_id: args.message_id,
      agent: args.agent,
      body: ack.body,
      created_at: ack.created_at,
      created,
    };
  });
  return tx.immediate();
}
