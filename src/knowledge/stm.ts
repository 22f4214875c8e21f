import { z } from 'zod';
import { isoNow, millisOf } from '../clock.js';
import type { BrainContext } from '../context.js';
import { BrainError } from '../errors.js';
import { newId } from '../ids.js';
import { ensureAgent } from '../messaging/agents.js';
import { noteAccess } from './access-counts.js';
import { messageRowId } from '../messaging/messages.js';
import { insertStm } from './store.js';
import { STM_SELECT, toStmRecord, type StmRecord, type StmRow } from './stm-rows.js';

export { STM_SELECT, getStmByRowIds, toStmRecord, type StmRecord } from './stm-rows.js';
import {
  agentName,
  isoTime,
  lookupKey,
  messageId,
  parseInput,
  stmId,
  text,
} from '../validation.js';

const category = text(64)
  .min(1)
  .transform((s) => s.trim().toLowerCase())
  .refine((s) => s.length > 0, 'must not be blank');

const rememberInput = z.strictObject({
  agent: agentName,
  content: text(100_000).refine((s) => s.trim().length > 0, 'must not be empty'),
  categories: z.array(category).max(32).default([]),
  importance: z.coerce
    .number()
    .min(1, 'must be between 1.0 and 3.0')
    .max(3, 'must be between 1.0 and 3.0')
    .default(1),
  expires_at: isoTime.optional(),
  source_message_id: messageId.optional(),
  at: isoTime.optional(),
});
export type RememberInput = z.input<typeof rememberInput>;

/** Store a short-term memory, optionally pointing at the message it came from. */
export function remember(ctx: BrainContext, input: RememberInput): StmRecord {
  const args = parseInput(rememberInput, input);
  const createdAt = args.at ?? isoNow(ctx.clock);
  if (args.expires_at && args.expires_at <= createdAt) {
    throw new BrainError('INVALID_INPUT', 'expires_at: must be in the future');
  }
  const uid = newId('stm');
  ctx.db
    .transaction(() => {
      insertStm(ctx, {
        uid,
        agent_id: ensureAgent(ctx, args.agent),
        content: args.content,
        importance: args.importance,
        source_message_id: args.source_message_id ? sourceRowId(ctx, args.source_message_id) : null,
        created_at: millisOf(createdAt),
        expires_at: args.expires_at ? millisOf(args.expires_at) : null,
        categories: args.categories,
      });
    })
    .immediate();
  return getStm(ctx, uid)!;
}

export function sourceRowId(ctx: BrainContext, id: string): number {
  const rowid = messageRowId(ctx, id);
  if (rowid === undefined) throw new BrainError('NOT_FOUND', `source_message_id: no message ${id}`);
  return rowid;
}

export function getStm(ctx: BrainContext, id: string): StmRecord | undefined {
  lookupKey(id, 'id');
  const row = ctx.q.get<[string], StmRow>(`${STM_SELECT} WHERE s.uid = ?`).get(id);
  return row && toStmRecord(row);
}

const listStmInput = z.strictObject({
  agent: agentName.optional(),
  category: category.optional(),
  include_expired: z.boolean().default(false),
  limit: z.coerce.number().int().min(1).max(1000).default(50),
});
export type ListStmInput = z.input<typeof listStmInput>;

/** Memories, most important then newest first; notes an access of each (see access-counts.ts). */
export function listStm(ctx: BrainContext, input: ListStmInput = {}): StmRecord[] {
  const args = parseInput(listStmInput, input);
  const rows = ctx.q
    .get<[Record<string, unknown>], StmRow>(
      `${STM_SELECT}
       WHERE (@agent IS NULL OR a.name = @agent)
         AND (@category IS NULL OR s.id IN (SELECT stm_id FROM stm_categories WHERE category = @category))
         AND (@all OR s.expires_at IS NULL OR s.expires_at > @now)
       ORDER BY s.importance DESC, s.created_at DESC, s.id DESC LIMIT @limit`,
    )
    .all({
      agent: args.agent ?? null,
      category: args.category ?? null,
      all: args.include_expired ? 1 : 0,
      now: ctx.clock().getTime(),
      limit: args.limit,
    });
  noteAccess(
    ctx,
    rows.map((r) => r.rowid),
  );
  return rows.map(toStmRecord);
}

export { stmId };
