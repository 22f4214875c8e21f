import { z } from 'zod';
import { isoSql } from '../clock.js';
import type { BrainContext } from '../context.js';
import { BrainError } from '../errors.js';
import { agentName, messageId, parseInput, text } from '../validation.js';
import { messageIdSql } from '../ids.js';
import { agentRowId, ensureAgent } from './agents.js';
import { insertAck, markRead } from './store.js';
import {
  MESSAGE_SELECT,
  messageRowId,
  toMessageRecord,
  type MessageRecord,
  type MessageRow,
} from './messages.js';

const inboxInput = z.strictObject({
  agent: agentName,
  limit: z.coerce.number().int().min(1).max(1000).default(50),
});
export type InboxInput = z.input<typeof inboxInput>;

const UNREAD_SQL = `${MESSAGE_SELECT}
  WHERE m.id IN (SELECT message_id FROM deliveries WHERE agent_id = ? AND read_at IS NULL ORDER BY message_id LIMIT ?)
  ORDER BY m.id`;

/** The agent's unread messages, oldest first, without marking them read. */
export function peekInbox(ctx: BrainContext, input: InboxInput): MessageRecord[] {
  const args = parseInput(inboxInput, input);
  const agentId = agentRowId(ctx, args.agent);
  if (agentId === undefined) return [];
  return ctx.q
    .get<[number, number], MessageRow>(UNREAD_SQL)
    .all(agentId, args.limit)
    .map(toMessageRecord);
}

/** Return the agent's unread messages and mark exactly those read, in one transaction. */
export function readInbox(ctx: BrainContext, input: InboxInput): MessageRecord[] {
  const args = parseInput(inboxInput, input);
  const tx = ctx.db.transaction((): MessageRecord[] => {
    const agentId = agentRowId(ctx, args.agent);
    if (agentId === undefined) return [];
    const rows = ctx.q.get<[number, number], MessageRow>(UNREAD_SQL).all(agentId, args.limit);
    const now = ctx.clock().getTime();
    for (const row of rows) markRead(ctx, row.rowid, agentId, now);
    return rows.map(toMessageRecord);
  });
  return tx.immediate();
}

const ackInput = z.strictObject({
  message_id: messageId,
  agent: agentName,
  body: text(10_000).optional(),
});
export type AckInput = z.input<typeof ackInput>;

export interface AckRecord {
  message_id: string;
  agent: string;
  body: string | null;
  created_at: string;
}

export interface AckResult extends AckRecord {
  /** false when the agent had already acknowledged the message (the first ack stands). */
  created: boolean;
}

/** Acknowledge a message (idempotent: the first ack stands); also marks it read for the agent. */
export function ackMessage(ctx: BrainContext, input: AckInput): AckResult {
  const args = parseInput(ackInput, input);
  const tx = ctx.db.transaction((): AckResult => {
    const messageRow = messageRowId(ctx, args.message_id);
    if (messageRow === undefined)
      throw new BrainError('NOT_FOUND', `message_id: no message ${args.message_id}`);
    const agentId = ensureAgent(ctx, args.agent);
    const now = ctx.clock().getTime();
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

/** Acks of the given message rows, grouped by message row id. */
export function acksFor(ctx: BrainContext, messageRowIds: number[]): Map<number, AckRecord[]> {
  const out = new Map<number, AckRecord[]>();
  if (messageRowIds.length === 0) return out;
  const stmt = ctx.q.get<
    [number],
    { message_id: number; uid: string; agent: string; body: string | null; created_at: string }
  >(
    `SELECT a.message_id, ${messageIdSql('m.uid')} AS uid, ag.name AS agent, a.body,
            ${isoSql('a.created_at')} AS created_at
     FROM acks a JOIN messages m ON m.id = a.message_id JOIN agents ag ON ag.id = a.agent_id
     WHERE a.message_id = ? ORDER BY a.created_at, ag.name`,
  );
  for (const id of messageRowIds) {
    const rows = stmt.all(id);
    if (rows.length) {
      out.set(
        id,
        rows.map((r) => ({
          message_id: r.uid,
          agent: r.agent,
          body: r.body,
          created_at: r.created_at,
        })),
      );
    }
  }
  return out;
}
