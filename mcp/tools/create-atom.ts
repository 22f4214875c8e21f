import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { atomInput, extend, occurredAsSaid, omit } from '../../src/index.js';
import { atomText } from '../format.js';
import { defineTool, readOccurred, type ToolContext } from './define.js';
import { atomRecord } from './records.js';

export function registerCreateAtom(server: McpServer, ctx: ToolContext): void {
  defineTool(server, ctx, 'create_atom', {
    title: 'Create atom',
    description:
      'Record causal knowledge as yourself: subject, action, outcome, consequences. Give source_message_id for provenance.',
    // The atom is the session's agent's, learned now.
    input: extend(omit(atomInput, ['agent', 'at']), { occurred_at: occurredAsSaid().optional() }),
    output: atomRecord,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    async run(args) {
      const occurred_at = await readOccurred(ctx, args.occurred_at);
      const atom = ctx.brain.knowledge.createAtom({ ...args, occurred_at, agent: ctx.agent() });
      return { data: atom, text: `created ${atomText(atom)}` };
    },
  });
}
