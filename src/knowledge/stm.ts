import { z } from 'zod';
import { isoNow, isoSql, millisOf } from '../clock.js';
import type { BrainContext } from '../context.js';
import { BrainError } from '../errors.js';
import { messageIdSql, newId } from '../ids.js';
import { ensureAgent } from '../messaging/agents.js';
import { noteAccess } from './access-counts.js';
import { messageRowId } from '../messaging/messages.js';
import { insertStm } from './store.js';
import {
  agentName,
  isoTime,
  lookupKey,
  messageId,
  parseInput,
  stmId,
  text,
} from '../validation.js';

export interface StmRecord {
  id: string;
  agent: string;
  content: string;
  categories: string[];
  importance: number;
  source_message_id: string | null;
  created_at: string;
  expires_at: string | null;
  access_count: number;
}

interface StmRow extends Omit<StmRecord, 'categories'> {
  rowid: number;
  categories: string;
}

export const STM_SELECT = `
  SELECT s.id AS rowid, s.uid AS id, a.name AS agent, s.content,
         (SELECT json_group_array(category) FROM (SELECT category FROM stm_categories WHERE stm_id = s.id ORDER BY category)) AS categories,
         s.importance, ${messageIdSql('m.uid')} AS source_message_id,
         ${isoSql('s.created_at')} AS created_at, ${isoSql('s.expires_at')} AS expires_at,
         s.access_count
  FROM stm s JOIN agents a ON a.id = s.agent_id LEFT JOIN messages m ON m.id = s.source_message_id`;

export function toStmRecord(row: StmRow): StmRecord {
  const { rowid: _rowid, ...rest } = row;
  return { ...rest, categories: JSON.parse(row.categories) as string[] };
}

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

export function getStmByRowIds(ctx: BrainContext, rowids: number[]): Map<number, StmRecord> {
  const stmt = ctx.q.get<[number], StmRow>(`${STM_SELECT} WHERE s.id = ?`);
  const out = new Map<number, StmRecord>();
  for (const id of rowids) {
    const row = stmt.get(id);
    if (row) out.set(id, toStmRecord(row));
  }
  return out;
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
