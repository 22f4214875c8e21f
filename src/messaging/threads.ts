// Threads: their records, a thread's history with receipts and acks, listing, status and tags.
import { attachmentsOf, type AttachmentInfo } from '../attachments/store.js';
// Free of zod (the input kit checks), so a one-shot `brain thread` loads this without it.
import { isoOfMillis, isoSql } from '../clock.js';
import type { BrainContext } from '../context.js';
import { BrainError } from '../errors.js';
import { check, object, type InputOf, type OutputOf } from '../input/check.js';
import { count, id, list, lookupKey, oneOf, text } from '../input/fields.js';
import { messageIdSql, threadIdSql, threadKey } from '../ids.js';
import { THREAD_STATUSES, type ThreadStatus } from '../vocabulary.js';
import {
  MESSAGE_SELECT,
  toMessageRecord,
  type MessageRecord,
  type MessageRow,
} from './message-rows.js';
import { threadRowId } from './row-ids.js';
import { addThreadTags } from './store.js';

export { threadRowId };

export interface ThreadRecord {
  id: string;
  subject: string;
  status: ThreadStatus;
  tags: string[];
  created_by: string;
  created_at: string;
  last_message_at: string;
  message_count: number;
}

interface ThreadRow extends Omit<ThreadRecord, 'tags'> {
  rowid: number;
  tags: string | null;
}

export interface Receipt {
  agent: string;
  read_at: string | null;
}

export interface AckRecord {
  message_id: string;
  agent: string;
  body: string | null;
  created_at: string;
}

export interface ThreadMessage extends MessageRecord {
  receipts: Receipt[];
  acks: AckRecord[];
  /** The files it carries; absent when none. */
  attachments?: AttachmentInfo[];
}

export interface ThreadHistory {
  thread: ThreadRecord;
  messages: ThreadMessage[];
  /** Offset of the next page, or null when this page reaches the end. */
  next_offset: number | null;
}

const THREAD_SELECT = `
  SELECT t.id AS rowid, ${threadIdSql('t.uid')} AS id, t.subject, t.status, a.name AS created_by,
         ${isoSql('t.created_at')} AS created_at, ${isoSql('t.last_message_at')} AS last_message_at,
         t.message_count,
         (SELECT json_group_array(tag) FROM (SELECT tag FROM thread_tags WHERE thread_id = t.id ORDER BY tag)) AS tags
  FROM threads t JOIN agents a ON a.id = t.created_by`;

function toThreadRecord(row: ThreadRow): ThreadRecord {
  const { rowid: _rowid, tags, ...rest } = row;
  return { ...rest, tags: tags ? (JSON.parse(tags) as string[]) : [] };
}

function threadRow(ctx: BrainContext, id: string): ThreadRow | undefined {
  const key = threadKey(id);
  if (key === undefined) return undefined;
  return ctx.q.get<[Buffer], ThreadRow>(`${THREAD_SELECT} WHERE t.uid = ?`).get(key);
}

export function getThread(ctx: BrainContext, id: string): ThreadRecord | undefined {
  const row = threadRow(ctx, lookupKey(id, 'id'));
  return row && toThreadRecord(row);
}

export const historyInput = object({
  thread_id: id('thread').describe('The thread (thr_…)'),
  limit: count(1, 1000).default(50).describe('Messages per page'),
  offset: count(0).default(0).describe('Skip this many'),
});
export type HistoryInput = InputOf<typeof historyInput>;
/** A history request once checked. */
export type HistoryArgs = OutputOf<typeof historyInput>;

/** The rowids of one page of a thread, in order (plan test). */
export const PAGE_SQL = `SELECT id FROM messages WHERE thread_id = ? ORDER BY created_at, id LIMIT ? OFFSET ?`;

/** A thread's messages in order (time, then rowid), a page at a time, with receipts and acks. */
export function threadHistory(ctx: BrainContext, input: HistoryInput): ThreadHistory {
  const args = check(historyInput, input);
  const row = threadRow(ctx, args.thread_id);
  if (!row) throw new BrainError('NOT_FOUND', `thread_id: no thread ${args.thread_id}`);
  const rows = ctx.q
    .get<[number, number, number], MessageRow>(
      // The page's rows are chosen in the thread's index alone (it holds time and rowid), so an
      // OFFSET skips index entries, not joined rows: the last page of 10,000 costs ~1 ms, not 17.
      `${MESSAGE_SELECT} WHERE m.id IN (${PAGE_SQL}) ORDER BY m.created_at, m.id`,
    )
    .all(row.rowid, args.limit + 1, args.offset);
  const more = rows.length > args.limit;
  return {
    thread: toThreadRecord(row),
    messages: withReceipts(ctx, rows.slice(0, args.limit)),
    next_offset: more ? args.offset + args.limit : null,
  };
}

/** One message with its receipts and acks, by its row key (`uid`), as a thread page shows it. */
export function threadMessageByKey(ctx: BrainContext, key: number): ThreadMessage | undefined {
  const row = ctx.q.get<[number], MessageRow>(`${MESSAGE_SELECT} WHERE m.uid = ?`).get(key);
  return row && withReceipts(ctx, [row])[0];
}

/** Messages with each one's receipts (one per recipient, by name) and acks. */
function withReceipts(ctx: BrainContext, rows: MessageRow[]): ThreadMessage[] {
  const acks = acksFor(
    ctx,
    rows.map((r) => r.rowid),
  );
  const receipts = ctx.q.get<[number], { agent: string; read_at: number | null }>(
    `SELECT a.name AS agent, d.read_at FROM deliveries d JOIN agents a ON a.id = d.agent_id
     WHERE d.message_id = ? ORDER BY a.name`,
  );
  const files = attachmentsOf(
    ctx,
    rows.map((r) => r.rowid),
  );
  return rows.map((r) => {
    const attachments = files.get(r.rowid);
    return {
      ...toMessageRecord(r),
      receipts: receipts
        .all(r.rowid)
        .map((d): Receipt => ({ agent: d.agent, read_at: isoOfMillis(d.read_at) })),
      acks: acks.get(r.rowid) ?? [],
      ...(attachments ? { attachments } : {}),
    };
  });
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

export const listThreadsInput = object({
  status: oneOf(THREAD_STATUSES).optional().describe('Only threads with this status'),
  tag: text(64).optional().describe('Only threads with this tag'),
  limit: count(1, 1000).default(50).describe('At most this many'),
  offset: count(0).default(0).describe('Skip this many'),
});
export type ListThreadsInput = InputOf<typeof listThreadsInput>;

/** Threads, most recently active first, optionally by status and tag. */
export function listThreads(ctx: BrainContext, input: ListThreadsInput = {}): ThreadRecord[] {
  const args = check(listThreadsInput, input);
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

const statusInput = object({ thread_id: id('thread'), status: oneOf(THREAD_STATUSES) });

/** Archive, close or reopen a thread. Nothing is deleted. */
export function setThreadStatus(
  ctx: BrainContext,
  threadIdValue: string,
  status: ThreadStatus,
): ThreadRecord {
  const args = check(statusInput, { thread_id: threadIdValue, status });
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

const tagInput = object({
  thread_id: id('thread'),
  add: list(text(64, { min: 1 }), { max: 32 }).default([]),
  remove: list(text(64, { min: 1 }), { max: 32 }).default([]),
});
export type TagThreadInput = InputOf<typeof tagInput>;

export function tagThread(ctx: BrainContext, input: TagThreadInput): ThreadRecord {
  const args = check(tagInput, input);
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
