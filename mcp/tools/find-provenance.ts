import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { provenanceInput, type Provenance } from '../../src/index.js';
import { atomText, messageText, stmText, threadLine } from '../format.js';
import { defineTool, type ToolContext } from './define.js';
import { anyRecord } from './records.js';

export function registerFindProvenance(server: McpServer, ctx: ToolContext): void {
  defineTool(server, ctx, 'find_provenance', {
    title: 'Find provenance',
    description:
      'For a memory or atom: its source message, thread and the messages around it. For a message: what was learned from it.',
    input: provenanceInput,
    output: z.looseObject({
      id: z.string(),
      type: z.string(),
      knowledge: z.looseObject({ type: z.string(), record: anyRecord }).optional(),
      message: anyRecord.nullable(),
      thread: anyRecord.nullable(),
      context: z.array(anyRecord),
      derived: z.looseObject({ stm: z.array(anyRecord), atoms: z.array(anyRecord) }),
    }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    run(args) {
      const p = ctx.brain.knowledge.provenance(args);
      return { data: p, text: provenanceText(p) };
    },
  });
}

function provenanceText(p: Provenance): string {
  const lines: string[] = [];
  if (p.knowledge) {
    lines.push(
      p.knowledge.type === 'stm' ? stmText(p.knowledge.record) : atomText(p.knowledge.record),
    );
    if (!p.message) lines.push('', 'no source message recorded');
  }
  if (p.message) {
    lines.push('', `source ${p.message.id}`);
    if (p.thread) lines.push(`thread ${threadLine(p.thread)}`);
    // The source carries its files (attachments); the messages around it are shown without.
    for (const m of p.context)
      lines.push('', m.id === p.message.id ? `▶ ${messageText(p.message)}` : messageText(m));
    const derived = [...p.derived.stm.map((s) => s.id), ...p.derived.atoms.map((a) => a.id)];
    lines.push('', derived.length ? `derived: ${derived.join(', ')}` : 'nothing derived from it');
  }
  return lines.join('\n').trim();
}
