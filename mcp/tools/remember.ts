import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { omit, rememberInput } from '../../src/index.js';
import { stmText } from '../format.js';
import { defineTool, type ToolContext } from './define.js';
import { stmRecord } from './records.js';

export function registerRemember(server: McpServer, ctx: ToolContext): void {
  defineTool(server, ctx, 'remember', {
    title: 'Remember',
    description:
      'Store a short-term memory as yourself. Give source_message_id when it came from a message, so it keeps its provenance.',
    // The memory is the session's agent's, learned now.
    input: omit(rememberInput, ['agent', 'at']),
    output: stmRecord,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    run(args) {
      const memory = ctx.brain.knowledge.remember({ ...args, agent: ctx.agent() });
      return { data: memory, text: `remembered ${stmText(memory)}` };
    },
  });
}
