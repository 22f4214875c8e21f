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
import { check } from '../input/check.js';
import { lookupKey } from '../input/fields.js';
import { listStmInput, rememberInput, type ListStmInput, type RememberInput } from './input.js';

export { rememberInput, type ListStmInput, type RememberInput } from './input.js';

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
        occurred_at: args.occurred_at ? millisOf(args.occurred_at) : null,
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

/** Memories, most important then newest first; notes an access of each (see access-counts.ts). */
export function listStm(ctx: BrainContext, input: ListStmInput = {}): StmRecord[] {
  const args = check(listStmInput, input);
  const rows = ctx.q
    .get<[Record<string, unknown>], StmRow>(
      `${STM_SELECT}
       WHERE (@agent IS NULL OR a.name = @agent)
         AND (@category IS NULL OR s.id IN (SELECT stm_id FROM stm_categories WHERE category = @category))
         AND (@all OR ((s.expires_at IS NULL OR s.expires_at > @now) AND s.superseded_by IS NULL))
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
