import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { listThreadsInput } from '../../src/index.js';
import { threadLine } from '../format.js';
import { defineTool, type ToolContext } from './define.js';
import { threadRecord } from './records.js';

export function registerListThreads(server: McpServer, ctx: ToolContext): void {
  defineTool(server, ctx, 'list_threads', {
    title: 'List threads',
    description: 'Threads, most recently active first, optionally by status or tag.',
    input: listThreadsInput,
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
