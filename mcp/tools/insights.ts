import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { insightsInput, omit, type Insight } from '../../src/index.js';
import { defineTool, type ToolContext } from './define.js';

export function registerInsights(server: McpServer, ctx: ToolContext): void {
  defineTool(server, ctx, 'insights', {
    title: 'Insights',
    description:
      'Decisions, facts, to-dos and preferences learned from the conversation, with their sources.',
    input: omit(insightsInput, ['include_superseded', 'since']),
    output: z.looseObject({
      insights: z.array(z.looseObject({ id: z.string(), content: z.string() })),
    }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    run(args) {
      const insights = ctx.brain.knowledge.insights(args);
      return { data: { insights }, text: insightsText(insights) };
    },
  });
}

function insightsText(insights: Insight[]): string {
  if (insights.length === 0) return 'nothing learned yet';
  return insights
    .map((i) => {
      const state = i.superseded_by ? ` (superseded by ${i.superseded_by})` : '';
      const from = i.sources.map((s) => `${s.message_id} by ${s.from}`).join(', ');
      return `${i.id} [${i.categories.join(', ')}] ${i.content}${state}\n  from ${from}`;
    })
    .join('\n');
}
