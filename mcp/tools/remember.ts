import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { extend, occurredAsSaid, omit, rememberInput } from '../../src/index.js';
import { stmText } from '../format.js';
import { defineTool, readOccurred, type ToolContext } from './define.js';
import { stmRecord } from './records.js';

export function registerRemember(server: McpServer, ctx: ToolContext): void {
  defineTool(server, ctx, 'remember', {
    title: 'Remember',
    description:
      'Store a short-term memory as yourself. Give source_message_id when it came from a message, so it keeps its provenance.',
    // The memory is the session's agent's, learned now.
    input: extend(omit(rememberInput, ['agent', 'at']), {
      occurred_at: occurredAsSaid().optional(),
    }),
    output: stmRecord,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    async run(args) {
      const occurred_at = await readOccurred(ctx, args.occurred_at);
      const memory = ctx.brain.knowledge.remember({ ...args, occurred_at, agent: ctx.agent() });
      return { data: memory, text: `remembered ${stmText(memory)}` };
    },
  });
}
