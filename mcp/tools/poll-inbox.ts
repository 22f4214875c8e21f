import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { defineTool, type ToolContext } from './define.js';

export function registerPollInbox(server: McpServer, ctx: ToolContext): void {
  defineTool(server, ctx, 'poll_inbox', {
    title: 'Poll inbox',
    description: 'Count your unread messages. Cheap; changes nothing.',
    input: z.strictObject({}),
    output: z.looseObject({ agent: z.string(), unread: z.number() }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    run() {
      const r = ctx.brain.messages.poll(ctx.caller);
      return { data: r, text: `${r.agent}: ${r.unread} unread` };
    },
  });
}
