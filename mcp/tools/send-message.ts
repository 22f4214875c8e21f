import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { omit, sendInput } from '../../src/index.js';
import { defineTool, type ToolContext } from './define.js';

export function registerSendMessage(server: McpServer, ctx: ToolContext): void {
  defineTool(server, ctx, 'send_message', {
    title: 'Send message',
    description:
      'Send a message as yourself to one agent, or to every other agent when `to` is omitted. Starts a thread unless `thread` or `reply_to` is given.',
    // The sender is the session's agent; metadata and `at` are for importers, not agents.
    input: omit(sendInput, ['from', 'metadata', 'at']),
    output: z.looseObject({
      id: z.string(),
      thread_id: z.string(),
      created_at: z.string(),
      recipients: z.number(),
    }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    run(args) {
      const r = ctx.brain.messages.send({ ...args, from: ctx.agent() });
      const to = args.to ?? `all (${r.recipients} agents)`;
      return {
        data: {
          id: r.id,
          thread_id: r.thread_id,
          created_at: r.created_at,
          recipients: r.recipients,
        },
        text: `sent ${r.id} to ${to} in thread ${r.thread_id}`,
      };
    },
  });
}
