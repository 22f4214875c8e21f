import type { SearchType } from '../validation.js';

/** Each search type's full-text index (migrations 0001 and 0003), in SEARCH_TYPES' order. */
export const FTS_TABLES = {
  message: 'messages_fts',
  stm: 'stm_fts',
  atom: 'atoms_fts',
} as const satisfies Record<SearchType, string>;

export type FtsTable = (typeof FTS_TABLES)[SearchType];
