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
import { check, object, type InputOf } from '../input/check.js';
import {
  WORDS,
  agentName,
  boolean,
  count,
  id,
  isoTime,
  list,
  lookupKey,
  number,
  text,
} from '../input/fields.js';

const category = () =>
  text(64, { min: 1 })
    .map((s) => s.trim().toLowerCase())
    .refine((s) => s.length > 0, 'must not be blank');

export const rememberInput = object({
  agent: agentName().describe('Whose memory'),
  content: text(100_000)
    .refine((s) => s.trim().length > 0, WORDS.empty)
    .describe('What to remember'),
  categories: list(category(), { max: 32 }).default([]).describe('Categories, e.g. ["decision"]'),
  importance: number(1, 3, 'must be between 1.0 and 3.0').default(1).describe('1.0 to 3.0'),
  expires_at: isoTime().optional().describe('ISO 8601 time when it lapses'),
  source_message_id: id('message').optional().describe('The message it came from (syn_…)'),
  /** For importers and replays. */
  at: isoTime().optional().describe('When it was learned (ISO 8601); default now'),
});
export type RememberInput = InputOf<typeof rememberInput>;

/** Store a short-term memory, optionally pointing at the message it came from. */
export function remember(ctx: BrainContext, input: RememberInput): StmRecord {
  const args = check(rememberInput, input);
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

const listStmInput = object({
  agent: agentName().optional(),
  category: category().optional(),
  include_expired: boolean().default(false),
  limit: count(1, 1000).default(50),
});
export type ListStmInput = InputOf<typeof listStmInput>;

/** Memories, most important then newest first; notes an access of each (see access-counts.ts). */
export function listStm(ctx: BrainContext, input: ListStmInput = {}): StmRecord[] {
  const args = check(listStmInput, input);
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
