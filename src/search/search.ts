// The searches that check their input (input.ts) before the work of search-run.ts.
import type { BrainContext } from '../context.js';
import type { Embedder } from '../embed/embedder.js';
import { check } from '../input/check.js';
import { searchInput, type SearchInput } from './input.js';
import { runSearch, runSearchHybrid, type HybridOptions, type SearchResult } from './search-run.js';

export { MAX_QUERY_CHARS, searchInput, type SearchInput } from './input.js';
export {
  FUSION_DEPTH,
  VECTOR_DEPTH,
  type HybridOptions,
  type Retriever,
  type RetrieverEvidence,
  type SearchArgs,
  type SearchHit,
  type SearchMode,
  type SearchResult,
} from './search-run.js';

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
