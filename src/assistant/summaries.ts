import type { BrainContext } from '../context.js';
import { messageIdSql, threadKey } from '../ids.js';
import { STM_SELECT, toStmRecord, type StmRecord } from '../knowledge/stm.js';
import { lookupKey } from '../validation.js';
import { SUMMARY_CATEGORY } from './vocabulary.js';

export interface SessionSummary {
  stm: StmRecord;
  /** The last message the summary covers (its `source_message_id`). */
  covers_through: string;
}

/**
 * The summary that covers a thread furthest: among STM entries of category `summary` that the
 * assistant stated as it compacted (not a thread summary extraction wrote: its source is the
 * first message it covers) and whose source message is in the thread, the one whose source comes
 * last (then the newest). A read: it counts no access. Its cost grows with the number of
 * summaries, which is small (one per compaction).
 */
export function latestSummary(ctx: BrainContext, thread: string): SessionSummary | undefined {
  const key = threadKey(lookupKey(thread, 'thread_id'));
  if (key === undefined) return undefined;
  const row = ctx.q
    .get<[string, Buffer], { rowid: number; covers: string }>(
      `SELECT s.id AS rowid, ${messageIdSql('m.uid')} AS covers
       FROM stm_categories c
       JOIN stm s ON s.id = c.stm_id
       JOIN messages m ON m.id = s.source_message_id
       WHERE c.category = ? AND m.thread_id = (SELECT id FROM threads WHERE uid = ?)
         AND s.extractor IS NULL
       ORDER BY m.created_at DESC, m.id DESC, s.id DESC LIMIT 1`,
    )
    .get(SUMMARY_CATEGORY, key);
  if (!row) return undefined;
  const stm = ctx.q
    .get<[number], Parameters<typeof toStmRecord>[0]>(`${STM_SELECT} WHERE s.id = ?`)
    .get(row.rowid)!;
  return { stm: toStmRecord(stm), covers_through: row.covers };
}
