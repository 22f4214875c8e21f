import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { atomText } from '../format.js';
import { defineTool, type ToolContext } from './define.js';
import { atomRecord } from './records.js';

export function registerCreateAtom(server: McpServer, ctx: ToolContext): void {
  defineTool(server, ctx, 'create_atom', {
    title: 'Create atom',
    description:
      'Record causal knowledge as yourself: subject, action, outcome, consequences. Give source_message_id for provenance.',
    input: z.strictObject({
      subject: z.string().describe('What it is about'),
      action: z.string().describe('What was done'),
      outcome: z.string().describe('What happened'),
      consequences: z.string().optional().describe('What follows from it'),
      confidence: z.number().min(0).max(1).optional().describe('0 to 1 (0.5)'),
      source_message_id: z.string().optional().describe('The message it came from (syn_…)'),
    }),
    output: atomRecord,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    run(args) {
      const atom = ctx.brain.knowledge.createAtom({ ...args, agent: ctx.agent() });
      return { data: atom, text: `created ${atomText(atom)}` };
    },
  });
}
