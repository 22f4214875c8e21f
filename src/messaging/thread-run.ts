// Threads as records, and a thread's history, on input already checked: free of zod, so a
// one-shot `brain thread` or `brain provenance` need not load it.
import { isoOfMillis, isoSql } from '../clock.js';
import type { BrainContext } from '../context.js';
import { BrainError } from '../errors.js';
import { threadIdSql, threadKey } from '../ids.js';
import type { ThreadStatus } from '../vocabulary.js';
import { acksFor, type AckRecord } from './inbox-run.js';
import {
  MESSAGE_SELECT,
  toMessageRecord,
  type MessageRecord,
  type MessageRow,
} from './message-rows.js';

/** A history request once checked. */
export interface HistoryArgs {
  thread_id: string;
  limit: number;
  offset: number;
}

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

export interface ThreadRow extends Omit<ThreadRecord, 'tags'> {
  rowid: number;
  tags: string | null;
}

export interface Receipt {
  agent: string;
  read_at: string | null;
}

export interface ThreadMessage extends MessageRecord {
  receipts: Receipt[];
  acks: AckRecord[];
}

export interface ThreadHistory {
  thread: ThreadRecord;
  messages: ThreadMessage[];
  /** Offset of the next page, or null when this page reaches the end. */
  next_offset: number | null;
}

export const THREAD_SELECT = `
  SELECT t.id AS rowid, ${threadIdSql('t.uid')} AS id, t.subject, t.status, a.name AS created_by,
         ${isoSql('t.created_at')} AS created_at, ${isoSql('t.last_message_at')} AS last_message_at,
         t.message_count,
         (SELECT json_group_array(tag) FROM (SELECT tag FROM thread_tags WHERE thread_id = t.id ORDER BY tag)) AS tags
  FROM threads t JOIN agents a ON a.id = t.created_by`;

export function toThreadRecord(row: ThreadRow): ThreadRecord {
  const { rowid: _rowid, tags, ...rest } = row;
  return { ...rest, tags: tags ? (JSON.parse(tags) as string[]) : [] };
}

export function threadRow(ctx: BrainContext, id: string): ThreadRow | undefined {
  const key = threadKey(id);
  if (key === undefined) return undefined;
  return ctx.q.get<[Buffer], ThreadRow>(`${THREAD_SELECT} WHERE t.uid = ?`).get(key);
}

/** A thread by its public id, for a string id (callers of unknown input check it first). */
export function findThread(ctx: BrainContext, id: string): ThreadRecord | undefined {
  const row = threadRow(ctx, id);
  return row && toThreadRecord(row);
}

/** The rowids of one page of a thread, in order (plan test). */
export const PAGE_SQL = `SELECT id FROM messages WHERE thread_id = ? ORDER BY created_at, id LIMIT ? OFFSET ?`;

/** A thread's messages in order (time, then rowid), a page at a time, with receipts and acks. */
export function runThreadHistory(ctx: BrainContext, args: HistoryArgs): ThreadHistory {
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
  return rows.map((r) => ({
    ...toMessageRecord(r),
    receipts: receipts
      .all(r.rowid)
      .map((d): Receipt => ({ agent: d.agent, read_at: isoOfMillis(d.read_at) })),
    acks: acks.get(r.rowid) ?? [],
  }));
}
