import { z } from 'zod';
import { isoSql } from '../clock.js';
import type { BrainContext } from '../context.js';
import { BrainError } from '../errors.js';
import { agentName, messageId, parseInput, text } from '../validation.js';
import { agentRowId, ensureAgent } from './agents.js';
import { runPeek, runRead, type AckRecord, type InboxArgs } from './inbox-run.js';
import { messageRowId, type MessageRecord } from './messages.js';
import { insertAck, markRead } from './store.js';

export { acksFor, type AckRecord, type InboxArgs } from './inbox-run.js';

const inboxInput = z.strictObject({
  agent: agentName,
  limit: z.coerce.number().int().min(1).max(1000).default(50),
});
export type InboxInput = z.input<typeof inboxInput>;

/** The agent's unread messages, oldest first, without marking them read. */
export function peekInbox(ctx: BrainContext, input: InboxInput): MessageRecord[] {
  return runPeek(ctx, parseInboxInput(input));
}

/** Return the agent's unread messages and mark exactly those read, in one transaction. */
export function readInbox(ctx: BrainContext, input: InboxInput): MessageRecord[] {
  return runRead(ctx, parseInboxInput(input));
}

/** The input checked by the schema: defaults applied, or a BrainError naming the field. */
export function parseInboxInput(input: InboxInput): InboxArgs {
  return parseInput(inboxInput, input);
}

const markReadInput = z.strictObject({ message_id: messageId, agent: agentName });
export type MarkReadInput = z.input<typeof markReadInput>;

/**
 * Mark one message read for one agent (an assistant that answers it, say); whether it was unread.
 * An agent the message was not delivered to has nothing to mark.
 */
export function markMessageRead(ctx: BrainContext, input: MarkReadInput): boolean {
  const args = parseInput(markReadInput, input);
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

const ackInput = z.strictObject({
  message_id: messageId,
  agent: agentName,
  body: text(10_000).optional(),
});
export type AckInput = z.input<typeof ackInput>;

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
