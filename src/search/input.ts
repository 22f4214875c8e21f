// A search's input, declared once: the input kit checks it without zod for every caller, and
// MCP derives its tool schema from it. Apart from the search code, so that the library's face
// can offer it without loading the ranking.
import { object, type InputOf } from '../input/check.js';
import {
  WORDS,
  agentName,
  boolean,
  count,
  id,
  isoTime,
  list,
  number,
  oneOf,
  text,
} from '../input/fields.js';
import type * as TimeWordsModule from './time-words.js';
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, SEARCH_TYPES } from '../vocabulary.js';

/** A query's most characters: past a question's length, a pasted document. */
export const MAX_QUERY_CHARS = 2000;

export const searchInput = object({
  query: text(MAX_QUERY_CHARS)
    .refine((s) => s.trim().length > 0, WORDS.empty)
    .describe('Words or a question'),
  types: list(oneOf(SEARCH_TYPES), { min: 1, minWords: 'must name at least one type' })
    .default([...SEARCH_TYPES])
    .describe('What to search'),
  limit: count(1, MAX_SEARCH_LIMIT).default(DEFAULT_SEARCH_LIMIT).describe('At most this many'),
  since: isoTime().optional().describe('ISO 8601 date or time'),
  until: isoTime({ wholeDay: true }).optional().describe('ISO 8601 date or time'),
  thread: id('thread').optional().describe('Only this thread (thr_…)'),
  /** What a caller already holds, e.g. a session's context. */
  exclude_thread: id('thread').optional().describe('Leave out the messages of this thread'),
  exclude_archived: boolean().default(false).describe('Hide archived threads'),
  agent: agentName().optional().describe('Only items by this agent'),
});
export type SearchInput = InputOf<typeof searchInput>;

const MAX_HOURS = 24 * 365 * 10;

export const recentInput = object({
  hours: number(0, MAX_HOURS, `must be a number of hours up to ${MAX_HOURS}`)
    .refine((h) => h > 0, 'must be more than 0')
    .default(24)
    .describe('How far back, in hours'),
  types: list(oneOf(SEARCH_TYPES), { min: 1 })
    .default([...SEARCH_TYPES])
    .describe('What to list'),
  limit: count(1, 1000).default(50).describe('At most this many'),
  /** A window instead of the last hours: from since (inclusive) to until (exclusive). */
  since: isoTime().optional().describe('ISO 8601 date or time; instead of hours'),
  until: isoTime({ wholeDay: true }).optional().describe('ISO 8601 date or time'),
});
export type RecentInput = InputOf<typeof recentInput>;

// The reading of time words, behind a door: the face offers it without loading the reader (and
// the reader loads chrono-node only for a query that may hold a time).
type TimeWords = typeof TimeWordsModule;

/** See time-words.ts: a query's time expression as since/until, and how it was read. */
export async function readTime(
  ...args: Parameters<TimeWords['readTime']>
): ReturnType<TimeWords['readTime']> {
  return (await import('./time-words.js')).readTime(...args);
}

/** See time-words.ts: a since or until as typed, ISO 8601 or a time expression. */
export async function readTimeBound(
  ...args: Parameters<TimeWords['readTimeBound']>
): ReturnType<TimeWords['readTimeBound']> {
  return (await import('./time-words.js')).readTimeBound(...args);
}
