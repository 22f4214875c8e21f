import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { historyInput } from '../../src/index.js';
import { messageText, threadLine } from '../format.js';
import { defineTool, type ToolContext } from './define.js';
import { messageRecord, threadRecord } from './records.js';

export function registerGetThread(server: McpServer, ctx: ToolContext): void {
  defineTool(server, ctx, 'get_thread', {
    title: 'Get thread',
    description:
      "A thread's messages in order, with who has read and acked each, a page at a time.",
    input: historyInput,
    output: z.looseObject({
      thread: threadRecord,
      messages: z.array(messageRecord),
      next_offset: z.number().nullable(),
    }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    run(args) {
      const history = ctx.brain.messages.thread(args);
      // The latest summary leads (one indexed look-up); left out of the output schema, which is
      // loose, so the tools' listing does not grow.
      const summary = ctx.brain.knowledge.threadSummary(history.thread.id);
      const lines = [threadLine(history.thread)];
      if (summary) lines.push(`Summary: ${summary.content}`);
      for (const m of history.messages) {
        const read = m.receipts.filter((r) => r.read_at).map((r) => r.agent);
        const acks = m.acks.map((a) => (a.body ? `${a.agent} ("${a.body}")` : a.agent));
        const marks = [
          read.length ? `read by ${read.join(', ')}` : '',
          acks.length ? `acked by ${acks.join(', ')}` : '',
        ].filter(Boolean);
        lines.push('', messageText(m), ...(marks.length ? [`(${marks.join('; ')})`] : []));
      }
      if (history.next_offset !== null) lines.push('', `more: offset ${history.next_offset}`);
      return { data: { summary: summary ?? null, ...history }, text: lines.join('\n') };
    },
  });
}
