import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { messagesText } from './format.js';
import { asMcpError } from './resources.js';
import type { ToolContext } from './tools/define.js';

/** Prompts for the two routines agents repeat: catching up on mail, recording a decision. */
export function registerPrompts(server: McpServer, ctx: ToolContext): void {
  server.registerPrompt(
    'catch_up',
    {
      title: 'Catch up on unread mail',
      description: 'Your unread messages (not marked read) and how to work through them.',
    },
    () =>
      prompt(() => {
        const agent = ctx.caller;
        const messages = ctx.brain.messages.peek({ agent, limit: 50 });
        const { unread } = ctx.brain.messages.poll(agent);
        if (unread === 0) return `You are ${agent} on the brain. You have no unread messages.`;
        return [
          `You are ${agent} on the brain. You have ${unread} unread message(s)${unread > messages.length ? `; the oldest ${messages.length} are below` : ''}:`,
          '',
          messagesText(messages),
          '',
          'Work through them: call read_inbox to mark them read; answer with send_message (reply_to the message id);',
          'ack_message what you have handled or decided not to answer; and record what should outlive the',
          'conversation with remember or create_atom, giving source_message_id so it keeps its provenance.',
        ].join('\n');
      }),
  );

  server.registerPrompt(
    'record_decision',
    {
      title: 'Record a decision with provenance',
      description: 'Store a decision as an atom pointing at the message it was made in.',
      argsSchema: {
        decision: z.string().describe('The decision, in a sentence'),
        message_id: z.string().optional().describe('The message it was made in (syn_…)'),
      },
    },
    ({ decision, message_id }) =>
      prompt(() =>
        [
          `Record this decision in the brain: ${decision}`,
          '',
          message_id
            ? `1. Call find_provenance with id ${message_id} to see the thread it was made in.`
            : '1. Call search to find the message where it was decided, and use its id below.',
          '2. Call create_atom with subject (what the decision is about), action (what was decided),',
          '   outcome (what it changes), consequences (what follows, what to watch), a confidence,',
          `   and source_message_id${message_id ? ` ${message_id}` : ''}.`,
          '3. Search for atoms it follows from or affects and link_atoms them (causes, enables, precedes).',
          '4. If other agents must know, send_message in the same thread (reply_to the source message).',
        ].join('\n'),
      ),
  );
}

function prompt(build: () => string): GetPromptResult {
  try {
    return { messages: [{ role: 'user', content: { type: 'text', text: build() } }] };
  } catch (err) {
    throw asMcpError(err);
  }
}
