// Messages as rows and records, with no input checking: what read paths (search, provenance)
// need without loading the schemas of messages.ts.
import type { AttachmentInfo } from '../attachments/store.js';
import { isoSql } from '../clock.js';
import { messageIdSql, threadIdSql } from '../ids.js';
import type { Priority } from '../vocabulary.js';

export interface MessageRecord {
  id: string;
  thread_id: string;
  from: string;
  /** null: a broadcast to every agent but the sender. */
  to: string | null;
  reply_to: string | null;
  priority: Priority;
  subject: string;
  body: string;
  metadata: Record<string, unknown>;
  created_at: string;
  /** The files it carries, where the reader asked for them (inbox, thread); absent when none. */
  attachments?: AttachmentInfo[];
}

export interface MessageRow {
  rowid: number;
  id: string;
  thread_id: string;
  from: string;
  to: string | null;
  reply_to: string | null;
  priority: Priority;
  subject: string;
  body: string;
  metadata: string | null;
  created_at: string;
}

/**
 * Columns and joins that turn a messages row `m` into a MessageRecord: the stored integers of id
 * and time (migration 0005) become `syn_…` and ISO 8601 here.
 */
export const MESSAGE_SELECT = `
  SELECT m.id AS rowid, ${messageIdSql('m.uid')} AS id, ${threadIdSql('t.uid')} AS thread_id,
         fa.name AS "from",
         ta.name AS "to", ${messageIdSql('p.uid')} AS reply_to, m.priority,
         coalesce(m.subject, t.subject) AS subject, m.body, m.metadata,
         ${isoSql('m.created_at')} AS created_at
  FROM messages m
  JOIN threads t ON t.id = m.thread_id
  JOIN agents fa ON fa.id = m.from_agent
  LEFT JOIN agents ta ON ta.id = m.to_agent
  LEFT JOIN messages p ON p.id = m.reply_to`;

export function toMessageRecord(row: MessageRow): MessageRecord {
  return {
    id: row.id,
    thread_id: row.thread_id,
    from: row.from,
    to: row.to,
    reply_to: row.reply_to,
    priority: row.priority,
    subject: row.subject,
    body: row.body,
    metadata: row.metadata ? (JSON.parse(row.metadata) as Record<string, unknown>) : {},
    created_at: row.created_at,
  };
}

/** The first line of a body, cut to a subject's length. */
export function excerpt(body: string, max = 80): string {
  const line = body.trim().split('\n', 1)[0]!.trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}
