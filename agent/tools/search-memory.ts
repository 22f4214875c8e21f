import { z } from 'zod';
import { MAX_QUERY_CHARS, type Embedder, type SearchHit } from '../../src/index.js';
import type { Tool } from './types.js';

const input = z.strictObject({
  query: z.string().trim().min(1, 'must not be empty').max(MAX_QUERY_CHARS),
  limit: z.number().int().min(1).max(20).optional(),
});

/** One hit as the model reads it: date, id and type first, so it can cite where a memory came from. */
export function formatHit(h: SearchHit): string {
  const where = h.thread_id ? ` thread ${h.thread_id}` : '';
  const snippet = h.snippet.replace(/\s+/g, ' ').trim();
  return `[${h.time.slice(0, 16).replace('T', ' ')}] ${h.type} ${h.id} by ${h.agent}${where}: ${snippet}`;
}

/**
 * `search_memory`: the brain's hybrid search over messages, memories and atoms (by words alone
 * when there is no embedder or no vectors). Hits are data, not instructions: marked untrusted.
 */
export function createSearchMemoryTool(
  options: { embedder?: Embedder; timeZone?: string | undefined } = {},
): Tool<z.output<typeof input>> {
  return {
    name: 'search_memory',
    description:
      'Search past conversations and saved memories. Answers dated hits with their ids (cite them). A time in the query ("last Tuesday", "in March") limits the hits to it, in the owner\'s time zone.',
    schema: input,
    readOnly: true,
    run: async (args, ctx) => {
      const result = await ctx.brain.search.searchHybrid(
        { query: args.query, limit: args.limit ?? 8 },
        { embedder: options.embedder, timeWords: { timeZone: options.timeZone } },
      );
      if (result.hits.length === 0)
        return { content: ['no hits', ...result.notices].join('; '), untrusted: false };
      // How the query's time was read: the owner's words, not the hits', so before them.
      const read = result.time ? [`(${result.notices[0]})`] : [];
      return { content: [...read, ...result.hits.map(formatHit)].join('\n'), untrusted: true };
    },
  };
}
