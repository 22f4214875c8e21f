// What the brain learned on its own, each entry with every message it was learned from: the
// answer to "what was decided in this thread?".
import { isoSql, millisOf } from '../../clock.js';
import type { BrainContext } from '../../context.js';
import { check } from '../../input/check.js';
import { messageIdSql, threadIdSql, threadKey } from '../../ids.js';
import { insightsInput, type InsightsInput } from '../input.js';

export interface InsightSource {
  message_id: string;
  thread_id: string;
  /** Who said it. */
  from: string;
  /** The extractor that learned it there; null when the agent stated it. */
  extractor: string | null;
}

export interface Insight {
  id: string;
  /** Whose knowledge: the speaker it was learned from. */
  agent: string;
  content: string;
  categories: string[];
  importance: number;
  /** The extractor that learned it (`name@version`). */
  extractor: string;
  created_at: string;
  /** When what it says happened, when known. */
  occurred_at: string | null;
  /** Under `since`, which of its times is since then: its event time or when it was learned. */
  matched_time?: 'occurred' | 'recorded';
  /** The entry that superseded it; null while it holds. */
  superseded_by: string | null;
  /** When it lapsed (its sources were edited away); null while it holds. */
  expires_at: string | null;
  sources: InsightSource[];
}

interface InsightRow extends Omit<Insight, 'categories' | 'sources' | 'matched_time'> {
  rowid: number;
  categories: string;
  sources: string;
}

const INSIGHT_SELECT = `
  SELECT s.id AS rowid, s.uid AS id, a.name AS agent, s.content,
         (SELECT json_group_array(category) FROM (SELECT category FROM stm_categories WHERE stm_id = s.id ORDER BY category)) AS categories,
         s.importance, s.extractor, ${isoSql('s.created_at')} AS created_at,
         ${isoSql('s.occurred_at')} AS occurred_at,
         (SELECT n.uid FROM stm n WHERE n.id = s.superseded_by) AS superseded_by,
         ${isoSql('s.expires_at')} AS expires_at,
         (SELECT json_group_array(json_object('message_id', ${messageIdSql('m.uid')},
                   'thread_id', ${threadIdSql('t.uid')}, 'from', fa.name, 'extractor', src.extractor))
            FROM (SELECT * FROM stm_sources WHERE stm_id = s.id ORDER BY added_at, message_id) src
            JOIN messages m ON m.id = src.message_id JOIN threads t ON t.id = m.thread_id
            JOIN agents fa ON fa.id = m.from_agent) AS sources
  FROM stm s JOIN agents a ON a.id = s.agent_id`;

/** What extractors learned, newest first, each with its sources (see InsightsInput). */
export function listInsights(ctx: BrainContext, input: InsightsInput = {}): Insight[] {
  const args = check(insightsInput, input);
  const rows = ctx.q
    .get<[Record<string, unknown>], InsightRow>(
      `${INSIGHT_SELECT}
       WHERE s.extractor IS NOT NULL
         AND (@all OR (s.superseded_by IS NULL AND (s.expires_at IS NULL OR s.expires_at > @now)))
         AND (@since IS NULL OR s.created_at >= @since OR s.occurred_at >= @since)
         AND (@category IS NULL OR s.id IN (SELECT stm_id FROM stm_categories WHERE category = @category))
         AND (@thread IS NULL OR s.id IN (
               SELECT src.stm_id FROM stm_sources src JOIN messages m ON m.id = src.message_id
               JOIN threads t ON t.id = m.thread_id WHERE t.uid = @thread))
       ORDER BY s.created_at DESC, s.id DESC LIMIT @limit`,
    )
    .all({
      all: args.include_superseded ? 1 : 0,
      now: ctx.clock().getTime(),
      since: args.since ? millisOf(args.since) : null,
      category: args.category ?? null,
      thread: args.thread_id ? threadKey(args.thread_id) : null,
      limit: args.limit,
    });
  const since = args.since ? millisOf(args.since) : undefined;
  const matched = (occurred: string | null): Pick<Insight, 'matched_time'> =>
    since === undefined
      ? {}
      : {
          matched_time: occurred !== null && millisOf(occurred) >= since ? 'occurred' : 'recorded',
        };
  return rows.map(({ rowid: _rowid, ...row }) => ({
    ...row,
    ...matched(row.occurred_at),
    categories: JSON.parse(row.categories) as string[],
    sources: JSON.parse(row.sources) as InsightSource[],
  }));
}
