import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { stmText } from '../format.js';
import { defineTool, type ToolContext } from './define.js';
import { stmRecord } from './records.js';

export function registerRemember(server: McpServer, ctx: ToolContext): void {
  defineTool(server, ctx, 'remember', {
    title: 'Remember',
    description:
      'Store a short-term memory as yourself. Give source_message_id when it came from a message, so it keeps its provenance.',
    input: z.strictObject({
      content: z.string().describe('What to remember'),
      categories: z.array(z.string()).optional().describe('Categories, e.g. ["decision"]'),
      importance: z.number().min(1).max(3).optional().describe('1.0 to 3.0 (1)'),
      source_message_id: z.string().optional().describe('The message it came from (syn_…)'),
      expires_at: z.string().optional().describe('ISO 8601 time when it lapses'),
    }),
    output: stmRecord,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    run(args) {
      const memory = ctx.brain.knowledge.remember({ ...args, agent: ctx.agent() });
      return { data: memory, text: `remembered ${stmText(memory)}` };
    },
  });
}
