import { z } from 'zod';
import type { Tool } from '../tools/types.js';

/**
 * `find_tools`: when the MCP tools' schemas would cost more context than the budget allows (or a
 * server is lazy), the model sees this one tool instead of them. It searches the tools' names and
 * descriptions; the tools it finds are loaded for the rest of the session, so the next model
 * request (in this turn and later ones) carries their schemas and the model can call them.
 */

export const FIND_TOOLS = 'find_tools';

const input = z.strictObject({
  query: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(300)
    .describe('What the tool should do, or exact tool names separated by spaces'),
  limit: z.number().int().min(1).max(10).default(5).describe('How many tools to load'),
});
type FindToolsInput = z.output<typeof input>;

const words = (text: string) =>
  text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1);

/**
 * The tools that best match a query: an exact name first, then by how many of the query's words
 * the name (worth 3) and the description (worth 1) contain; ties keep the given order.
 */
export function searchTools(tools: readonly Tool[], query: string, limit: number): Tool[] {
  const exact = new Set(query.split(/[\s,]+/).filter(Boolean));
  const terms = [...new Set(words(query))];
  return tools
    .map((tool, index) => {
      const name = tool.name.toLowerCase();
      const description = tool.description.toLowerCase();
      let score = exact.has(tool.name) ? 1000 : 0;
      for (const term of terms) {
        if (name.includes(term)) score += 3;
        if (description.includes(term)) score += 1;
      }
      return { tool, score, index };
    })
    .filter((m) => m.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, limit)
    .map((m) => m.tool);
}

export interface FindToolsDeps {
  /** The tools it may load: every MCP tool not already in the model's list (lazy servers started). */
  candidates(): Promise<readonly Tool[]>;
  /** Load these tools for the session, from the next model request on. */
  load(session: string, names: readonly string[]): void;
}

export function createFindTools(deps: FindToolsDeps): Tool<FindToolsInput> {
  return {
    name: FIND_TOOLS,
    description:
      'Search the tools of the connected MCP servers by name and description, and load the ' +
      'best matches so you can call them from your next step on. Use it when no tool you have fits.',
    schema: input,
    readOnly: true,
    async run({ query, limit }, ctx) {
      const candidates = await deps.candidates();
      const found = searchTools(candidates, query, limit);
      if (found.length === 0) {
        const total = candidates.length;
        return {
          content: `no tool matches "${query}" among ${total} tool${total === 1 ? '' : 's'}; try other words`,
        };
      }
      deps.load(
        ctx.session,
        found.map((t) => t.name),
      );
      const lines = found.map((t) => `- ${t.name}: ${t.description.split('\n')[0]}`);
      return {
        content: `Loaded for this session; call them directly:\n${lines.join('\n')}`,
        // The names and descriptions come from the servers.
        untrusted: true,
      };
    },
  };
}
