import { z } from 'zod';
import type { Tool } from './types.js';

const input = z.strictObject({
  to: z.string().trim().min(1, 'must not be empty').max(64).describe('the agent to message'),
  body: z.string().trim().min(1, 'must not be empty').max(100_000),
  subject: z.string().max(500).optional(),
  thread: z.string().optional().describe('a thread id (thr_…) to continue'),
});

/**
 * `send_message`: a message from the assistant to another agent of the brain. Its metadata names
 * the turn's user message (`source_message_id`), so what the assistant said can be traced to
 * what it was asked.
 */
export const sendMessageTool: Tool<z.output<typeof input>> = {
  name: 'send_message',
  description:
    'Send a message to another agent of the brain (a Claude Code session, another bot). A new thread unless thread names one.',
  schema: input,
  readOnly: false,
  run: async (args, ctx) => {
    if (args.to === ctx.agent) return { content: 'to: that is you', isError: true };
    const sent = ctx.brain.messages.send({
      from: ctx.agent,
      to: args.to,
      body: args.body,
      ...(args.subject !== undefined ? { subject: args.subject } : {}),
      ...(args.thread !== undefined ? { thread: args.thread } : {}),
      metadata: { source_message_id: ctx.turnMessageId, session: ctx.session },
    });
    return { content: `sent ${sent.id} in thread ${sent.thread_id}` };
  },
};
