import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { defineTool, type ToolContext } from './define.js';

export function registerAckMessage(server: McpServer, ctx: ToolContext): void {
  defineTool(server, ctx, 'ack_message', {
    title: 'Acknowledge message',
    description:
      'Acknowledge a message, optionally with a short answer; also marks it read. The first ack stands.',
    input: z.strictObject({
      message_id: z.string().describe('The message (syn_…)'),
      body: z.string().optional().describe('A short answer kept with the ack'),
    }),
    output: z.looseObject({
      message_id: z.string(),
      agent: z.string(),
      body: z.string().nullable(),
      created_at: z.string(),
      created: z.boolean(),
    }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    run(args) {
      const ack = ctx.brain.messages.ack({ ...args, agent: ctx.agent() });
      const text = ack.created
        ? `acknowledged ${ack.message_id}`
        : `already acknowledged ${ack.message_id} at ${ack.created_at}`;
      return { data: ack, text };
    },
  });
}
