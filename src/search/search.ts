// A search's input, declared once (the input kit checks it, without zod, for every caller), and
// the searches that check it before the work of search-run.ts.
import type { BrainContext } from '../context.js';
import type { Embedder } from '../embed/embedder.js';
import { check, object, type InputOf } from '../input/check.js';
import { WORDS, agentName, count, id, isoTime, list, oneOf, text } from '../input/fields.js';
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, SEARCH_TYPES } from '../vocabulary.js';
import {
  MAX_QUERY_CHARS,
  runSearch,
  runSearchHybrid,
  type HybridOptions,
  type SearchResult,
} from './search-run.js';

export {
  FUSION_DEPTH,
  MAX_QUERY_CHARS,
  VECTOR_DEPTH,
  type HybridOptions,
  type Retriever,
  type RetrieverEvidence,
  type SearchArgs,
  type SearchHit,
  type SearchMode,
  type SearchResult,
} from './search-run.js';

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
  agent: agentName().optional().describe('Only items by this agent'),
});
export type SearchInput = InputOf<typeof searchInput>;

/** One search over messages, STM and atoms by words (FTS5). Never fails on the text of the query. */
export function search(ctx: BrainContext, input: SearchInput): SearchResult {
  return runSearch(ctx, check(searchInput, input));
}

/**
 * Search by words and by meaning: FTS5 and vector k-NN with the same filters, fused by reciprocal
 * rank (see runSearchHybrid).
 */
export async function searchHybrid(
  ctx: BrainContext,
  embedder: Embedder | undefined,
  input: SearchInput,
  options: HybridOptions = {},
): Promise<SearchResult> {
  return runSearchHybrid(ctx, embedder, check(searchInput, input), options);
}
