import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { boolean, extend, inboxInput, pick } from '../../src/index.js';
import { messagesText } from '../format.js';
import { defineTool, type ToolContext } from './define.js';
import { messageRecord } from './records.js';

export function registerReadInbox(server: McpServer, ctx: ToolContext): void {
  defineTool(server, ctx, 'read_inbox', {
    title: 'Read inbox',
    description:
      'Your unread messages, oldest first. Marks them read unless mark_read is false (peek).',
    // The inbox is the session's agent's.
    input: extend(pick(inboxInput, ['limit']), {
      mark_read: boolean().default(true).describe('false: peek without marking read'),
    }),
    output: z.looseObject({ messages: z.array(messageRecord) }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    run({ mark_read, limit }) {
      // A peek only reads, so it takes the name without marking the agent seen.
      const input = { agent: mark_read ? ctx.agent() : ctx.caller, limit };
      const messages = mark_read ? ctx.brain.messages.read(input) : ctx.brain.messages.peek(input);
      const note = mark_read ? '' : `\n(peeked: ${messages.length} still unread)`;
      return { data: { messages }, text: `${messagesText(messages, 'no unread messages')}${note}` };
    },
  });
}
