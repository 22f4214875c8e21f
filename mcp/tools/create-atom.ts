import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { atomInput, omit } from '../../src/index.js';
import { atomText } from '../format.js';
import { defineTool, type ToolContext } from './define.js';
import { atomRecord } from './records.js';

export function registerCreateAtom(server: McpServer, ctx: ToolContext): void {
  defineTool(server, ctx, 'create_atom', {
    title: 'Create atom',
    description:
      'Record causal knowledge as yourself: subject, action, outcome, consequences. Give source_message_id for provenance.',
    // The atom is the session's agent's, learned now.
    input: omit(atomInput, ['agent', 'at']),
    output: atomRecord,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    run(args) {
      const atom = ctx.brain.knowledge.createAtom({ ...args, agent: ctx.agent() });
      return { data: atom, text: `created ${atomText(atom)}` };
    },
  });
}
