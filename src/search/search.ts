import { z } from 'zod';
import type { BrainContext } from '../context.js';
import type { Embedder } from '../embed/embedder.js';
import { SEARCH_TYPES, agentName, isoTime, parseInput, text, threadId } from '../validation.js';
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT } from '../vocabulary.js';
import {
  MAX_QUERY_CHARS,
  runSearch,
  runSearchHybrid,
  type HybridOptions,
  type SearchArgs,
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

/** `until` given as a bare date includes that whole day. */
const untilTime = z.string().transform((s, ctx) => {
  const parsed = isoTime.safeParse(s);
  if (!parsed.success) {
    for (const issue of parsed.error.issues)
      ctx.addIssue({ code: 'custom', message: issue.message });
    return z.NEVER;
  }
  return /^\d{4}-\d{2}-\d{2}$/.test(s.trim())
    ? new Date(Date.parse(parsed.data) + 86_400_000).toISOString()
    : parsed.data;
});

export const searchInput = z.strictObject({
  query: text(MAX_QUERY_CHARS).refine((s) => s.trim().length > 0, 'must not be empty'),
  types: z
    .array(z.enum(SEARCH_TYPES))
    .min(1, 'must name at least one type')
    .default([...SEARCH_TYPES]),
  limit: z.coerce.number().int().min(1).max(MAX_SEARCH_LIMIT).default(DEFAULT_SEARCH_LIMIT),
  since: isoTime.optional(),
  until: untilTime.optional(),
  thread: threadId.optional(),
  /** Leave out the messages of this thread (what a caller already holds, e.g. a session's context). */
  exclude_thread: threadId.optional(),
  agent: agentName.optional(),
});
export type SearchInput = z.input<typeof searchInput>;

/** One search over messages, STM and atoms by words (FTS5). Never fails on the text of the query. */
export function search(ctx: BrainContext, input: SearchInput): SearchResult {
  return runSearch(ctx, parseSearchInput(input));
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
  return runSearchHybrid(ctx, embedder, parseSearchInput(input), options);
}

/** The input checked by the schema: defaults applied, or a BrainError naming the field. */
export function parseSearchInput(input: SearchInput): SearchArgs {
  return parseInput(searchInput, input);
}
