import type { SearchType } from '../validation.js';

/** Each search type's full-text index (migrations 0001 and 0003), in SEARCH_TYPES' order. */
export const FTS_TABLES = {
  message: 'messages_fts',
  stm: 'stm_fts',
  atom: 'atoms_fts',
} as const satisfies Record<SearchType, string>;

/**
 * The message index's fields (migration 0003) and their BM25 weights: a word in the subject counts
 * twice what it counts in the body or the sender ("nova to helios"), a word of the date in words
 * ("8 May 2023") half.
 */
export const MESSAGE_FIELDS = { subject: 2, body: 1, sender: 1, date: 0.5 } as const;

export type MessageField = keyof typeof MESSAGE_FIELDS;

export type FtsTable = (typeof FTS_TABLES)[SearchType];
