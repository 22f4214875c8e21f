import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { THREAD_STATUSES } from '../../src/index.js';
import { threadLine } from '../format.js';
import { defineTool, type ToolContext } from './define.js';
import { threadRecord } from './records.js';

export function registerListThreads(server: McpServer, ctx: ToolContext): void {
  defineTool(server, ctx, 'list_threads', {
    title: 'List threads',
    description: 'Threads, most recently active first, optionally by status or tag.',
    input: z.strictObject({
      status: z.enum(THREAD_STATUSES).optional().describe('Only threads with this status'),
      tag: z.string().optional().describe('Only threads with this tag'),
      limit: z.number().int().min(1).max(1000).optional().describe('At most this many (50)'),
      offset: z.number().int().min(0).optional().describe('Skip this many (0)'),
    }),
    output: z.looseObject({ threads: z.array(threadRecord) }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    run(args) {
      const threads = ctx.brain.messages.threads(args);
      return {
        data: { threads },
        text: threads.length ? threads.map(threadLine).join('\n') : 'no threads',
      };
    },
  });
}
