/**
 * The fixed words of the brain's vocabulary. Plain lists with no dependencies, so the CLI can
 * name them in its help without loading the validation library.
 */
export const PRIORITIES = ['info', 'normal', 'action', 'urgent'] as const;
export type Priority = (typeof PRIORITIES)[number];
export const THREAD_STATUSES = ['active', 'archived', 'closed'] as const;
export type ThreadStatus = (typeof THREAD_STATUSES)[number];
export const LINK_TYPES = ['causes', 'enables', 'precedes', 'correlates'] as const;
export type LinkType = (typeof LINK_TYPES)[number];
export const SEARCH_TYPES = ['message', 'stm', 'atom'] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];
/** The most hits one search returns: every caller's `limit` (and eval's k) stops here. */
export const MAX_SEARCH_LIMIT = 200;
/** How many hits a search returns when it is given no limit. */
export const DEFAULT_SEARCH_LIMIT = 20;
/**
 * The category of STM entries that summarise: a thread's messages (knowledge/extract/summary.ts)
 * or an assistant session's older turns (assistant/summaries.ts).
 */
export const SUMMARY_CATEGORY = 'summary';
/** The category of STM entries about the owner: the profile (knowledge/profile.ts). */
export const PROFILE_CATEGORY = 'profile';
/** Which threads extraction reads: all, those tagged `extract`, or none. */
export const EXTRACT_THREADS = ['all', 'tagged', 'none'] as const;
export type ExtractThreads = (typeof EXTRACT_THREADS)[number];
