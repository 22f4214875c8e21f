import { z } from 'zod';
import type { BrainContext } from '../context.js';
import { BrainError } from '../errors.js';
import {
  THREAD_STATUSES,
  lookupKey,
  parseInput,
  text,
  threadId,
  type ThreadStatus,
} from '../validation.js';
import { threadKey } from '../ids.js';
import { addThreadTags } from './store.js';
import { threadRowId } from './row-ids.js';
import {
  THREAD_SELECT,
  findThread,
  runThreadHistory,
  type HistoryArgs,
  toThreadRecord,
  type ThreadHistory,
  type ThreadRecord,
  type ThreadRow,
} from './thread-run.js';

export { threadRowId };
export {
  PAGE_SQL,
  type Receipt,
  type ThreadHistory,
  type ThreadMessage,
  type ThreadRecord,
} from './thread-run.js';

export function getThread(ctx: BrainContext, id: string): ThreadRecord | undefined {
  return findThread(ctx, lookupKey(id, 'id'));
}

const historyInput = z.strictObject({
  thread_id: threadId,
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});
export type HistoryInput = z.input<typeof historyInput>;

/** A thread's messages in order (time, then rowid), a page at a time, with receipts and acks. */
export function threadHistory(ctx: BrainContext, input: HistoryInput): ThreadHistory {
  return runThreadHistory(ctx, parseHistoryInput(input));
}

/** The input checked by the schema: defaults applied, or a BrainError naming the field. */
export function parseHistoryInput(input: HistoryInput): HistoryArgs {
  return parseInput(historyInput, input);
}

const listInput = z.strictObject({
  status: z.enum(THREAD_STATUSES).optional(),
  tag: text(64).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});
export type ListThreadsInput = z.input<typeof listInput>;

/** Threads, most recently active first, optionally by status and tag. */
export function listThreads(ctx: BrainContext, input: ListThreadsInput = {}): ThreadRecord[] {
  const args = parseInput(listInput, input);
  if (args.status === undefined && args.tag === undefined) {
    // No filter: the newest threads of each status, merged. Each arm walks threads_by_status in
    // order and the merge stops at the limit, where one ORDER BY over all threads sorted them all
    // (~200 ms at 260,000 threads).
    const arm = (status: ThreadStatus) =>
      `SELECT id, last_message_at FROM threads WHERE status = '${status}'`;
    return ctx.q
      .get<[{ limit: number; offset: number }], ThreadRow>(
        `${THREAD_SELECT} WHERE t.id IN (SELECT id FROM (
           ${THREAD_STATUSES.map(arm).join(' UNION ALL ')}
           ORDER BY last_message_at DESC, id DESC LIMIT @limit OFFSET @offset))
         ORDER BY t.last_message_at DESC, t.id DESC`,
      )
      .all({ limit: args.limit, offset: args.offset })
      .map(toThreadRecord);
  }
  const rows = ctx.q
    .get<[Record<string, unknown>], ThreadRow>(
      `${THREAD_SELECT}
       WHERE (@status IS NULL OR t.status = @status)
         AND (@tag IS NULL OR t.id IN (SELECT thread_id FROM thread_tags WHERE tag = @tag))
       ORDER BY t.last_message_at DESC, t.id DESC LIMIT @limit OFFSET @offset`,
    )
    .all({
      status: args.status ?? null,
      tag: args.tag ?? null,
      limit: args.limit,
      offset: args.offset,
    });
  return rows.map(toThreadRecord);
}

const statusInput = z.strictObject({ thread_id: threadId, status: z.enum(THREAD_STATUSES) });

/** Archive, close or reopen a thread. Nothing is deleted. */
export function setThreadStatus(
  ctx: BrainContext,
  threadIdValue: string,
  status: ThreadStatus,
): ThreadRecord {
  const args = parseInput(statusInput, { thread_id: threadIdValue, status });
  const changes = ctx.db
    .transaction(
      () =>
        ctx.q
          .get(`UPDATE threads SET status = ? WHERE uid = ?`)
          .run(args.status, threadKey(args.thread_id)).changes,
    )
    .immediate();
  if (changes === 0) throw new BrainError('NOT_FOUND', `thread_id: no thread ${args.thread_id}`);
  return getThread(ctx, args.thread_id)!;
}

const tagInput = z.strictObject({
  thread_id: threadId,
  add: z.array(text(64).min(1)).max(32).default([]),
  remove: z.array(text(64).min(1)).max(32).default([]),
});
export type TagThreadInput = z.input<typeof tagInput>;

export function tagThread(ctx: BrainContext, input: TagThreadInput): ThreadRecord {
  const args = parseInput(tagInput, input);
  ctx.db
    .transaction(() => {
      const thread = threadRowId(ctx, args.thread_id);
      if (thread === undefined)
        throw new BrainError('NOT_FOUND', `thread_id: no thread ${args.thread_id}`);
      addThreadTags(ctx, thread, args.add);
      for (const tag of args.remove)
        ctx.q.get(`DELETE FROM thread_tags WHERE thread_id = ? AND tag = ?`).run(thread, tag);
    })
    .immediate();
  return getThread(ctx, args.thread_id)!;
}
