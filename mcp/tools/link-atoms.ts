import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { LINK_TYPES } from '../../src/index.js';
import { defineTool, type ToolContext } from './define.js';
import { linkRecord } from './records.js';

export function registerLinkAtoms(server: McpServer, ctx: ToolContext): void {
  defineTool(server, ctx, 'link_atoms', {
    title: 'Link atoms',
    description:
      'Link two atoms (from → to). Linking again with the same type updates the strength.',
    input: z.strictObject({
      from: z.string().describe('Atom (atm_…)'),
      to: z.string().describe('Atom (atm_…)'),
      type: z.enum(LINK_TYPES).optional().describe('Default causes'),
      strength: z.number().min(0).max(1).optional().describe('0 to 1 (0.5)'),
    }),
    output: linkRecord,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    run(args) {
      const link = ctx.brain.knowledge.link(args);
      return {
        data: link,
        text: `linked ${link.from} ${link.type} ${link.to} (strength ${link.strength})`,
      };
    },
  });
}
