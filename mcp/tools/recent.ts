import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { recentInput, type RecentItem } from '../../src/index.js';
import { shortTime } from '../format.js';
import { defineTool, type ToolContext } from './define.js';
import { anyRecord } from './records.js';

export function registerRecent(server: McpServer, ctx: ToolContext): void {
  defineTool(server, ctx, 'recent', {
    title: 'Recent activity',
    description: 'Messages, memories and atoms of the last N hours, newest first.',
    input: recentInput,
    output: z.looseObject({
      items: z.array(
        z.looseObject({ type: z.string(), id: z.string(), time: z.string(), record: anyRecord }),
      ),
    }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    run(args) {
      const items = ctx.brain.search.recent(args);
      return {
        data: { items },
        text: items.length ? items.map(itemLine).join('\n') : 'nothing recent',
      };
    },
  });
}

function itemLine(item: RecentItem): string {
  const head = `${item.type} ${item.id} ${shortTime(item.time)}`;
  if (item.type === 'message') {
    const m = item.record;
    const reply = m.reply_to ? ` re ${m.reply_to}` : '';
    return `${head} ${m.from} → ${m.to ?? 'all'}${reply} (${m.thread_id}): ${m.subject}`;
  }
  const from = item.record.source_message_id ? ` from ${item.record.source_message_id}` : '';
  if (item.type === 'stm')
    return `${head} ${item.record.agent}${from}: ${clip(item.record.content)}`;
  const a = item.record;
  return `${head} ${a.agent}${from}: ${a.subject}: ${clip(`${a.action} → ${a.outcome}`)}`;
}

function clip(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}
