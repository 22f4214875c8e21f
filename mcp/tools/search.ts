import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { omit, searchInput, type SearchResult } from '../../src/index.js';
import { hitText } from '../format.js';
import { defineTool, type ToolContext } from './define.js';
import { searchHit } from './records.js';

export function registerSearch(server: McpServer, ctx: ToolContext): void {
  defineTool(server, ctx, 'search', {
    title: 'Search',
    description:
      'Search messages, memories (stm) and atoms by words and meaning; each hit has its time and thread. A time in the query ("last Tuesday") ranks what falls then first; since/until filter.',
    // Leaving a thread out is for a session's own context, not a tool's caller.
    input: omit(searchInput, ['exclude_thread']),
    output: z.looseObject({
      hits: z.array(searchHit),
      notices: z.array(z.string()),
      retrievers: z.array(z.string()),
    }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    async run(args) {
      // Until the background has an embedder (or with none), this answers by words alone.
      const result = await ctx.brain.search.searchHybrid(args, {
        embedder: ctx.embedder(),
        timeWords: { timeZone: ctx.timeZone },
      });
      const lines = result.hits.length ? result.hits.map(hitText) : ['no hits'];
      return { data: result, text: [...lines, ...result.notices, ...byText(result)].join('\n') };
    },
  });
}

const RETRIEVER_WORDS: Record<string, string> = {
  fts: 'words',
  vector: 'meaning',
  time: 'the time asked',
  people: 'the people named',
  time_vector: 'meaning in the time asked',
};

/** Which retrievers ran (`retrievers` in the structured answer), for the model. */
function byText(result: SearchResult): string[] {
  if (result.retrievers.length === 0) return []; // nothing ran; a notice says why
  const by = result.retrievers.map((r) => RETRIEVER_WORDS[r] ?? r);
  const said = by.length < 2 ? by.join('') : `${by.slice(0, -1).join(', ')} and ${by.at(-1)}`;
  return [`(searched by ${said})`];
}
