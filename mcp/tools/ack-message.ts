import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ackInput, omit } from '../../src/index.js';
import { defineTool, type ToolContext } from './define.js';

export function registerAckMessage(server: McpServer, ctx: ToolContext): void {
  defineTool(server, ctx, 'ack_message', {
    title: 'Acknowledge message',
    description:
      'Acknowledge a message, optionally with a short answer; also marks it read. The first ack stands.',
    // The acknowledging agent is the session's.
    input: omit(ackInput, ['agent']),
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
