import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { linkInput } from '../../src/index.js';
import { defineTool, type ToolContext } from './define.js';
import { linkRecord } from './records.js';

export function registerLinkAtoms(server: McpServer, ctx: ToolContext): void {
  defineTool(server, ctx, 'link_atoms', {
    title: 'Link atoms',
    description:
      'Link two atoms (from → to). Linking again with the same type updates the strength.',
    input: linkInput,
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
