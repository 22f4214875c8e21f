import { checkAgentName } from '../agent-name.js';
import type { BrainContext } from '../context.js';
import { writeAgent } from './store.js';

/*
 * What `brain poll` does: count the agent's unread messages and mark it seen. Like the rest of
 * the messages section, free of zod: agents' hooks run the poll many times a minute.
 */

export interface PollResult {
  agent: string;
  unread: number;
}

/** Unread count from the partial index of unread deliveries: O(unread), never a write. */
export function poll(ctx: BrainContext, agent: string): PollResult {
  checkAgentName(agent);
  const row = ctx.q
    .get<[string], { n: number }>(
      `SELECT count(*) AS n FROM deliveries
       WHERE agent_id = (SELECT id FROM agents WHERE name = ?) AND read_at IS NULL`,
    )
    .get(agent);
  return { agent, unread: row?.n ?? 0 };
}

/** Register the agent if new and mark it seen now. */
export function touchAgent(ctx: BrainContext, name: string): void {
  checkAgentName(name);
  const at = ctx.clock().getTime();
  ctx.db.transaction(() => writeAgent(ctx, { name, at, seen: true })).immediate();
}
