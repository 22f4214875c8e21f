import { checkAgentName } from '../agent-name.js';
import type { BrainContext } from '../context.js';
import { writeWithoutWaiting } from '../db/no-wait.js';
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

/**
 * How long an agent's last-seen time stands before it is written again: presence is kept to the
 * minute, so an agent whose hooks run `brain poll` many times a minute reads and never writes
 * (a write takes the write lock, and the last connection to close must then checkpoint).
 */
export const SEEN_PRECISION_MS = 60_000;

/**
 * Register the agent if new and mark it seen now, unless it was seen less than a minute ago (a
 * read, then nothing to write). With `wait: false` the write is made only if the write lock is
 * free at once: false when it was not written.
 */
export function touchAgent(
  ctx: BrainContext,
  name: string,
  options: { wait?: boolean } = {},
): boolean {
  checkAgentName(name);
  const at = ctx.clock().getTime();
  const seen = ctx.q
    .get<[string], { at: number }>(`SELECT last_seen_at AS at FROM agents WHERE name = ?`)
    .get(name);
  if (seen && at >= seen.at && at - seen.at < SEEN_PRECISION_MS) return true;
  const write = () =>
    void ctx.db.transaction(() => writeAgent(ctx, { name, at, seen: true })).immediate();
  if (options.wait === false) return writeWithoutWaiting(ctx.db, write);
  write();
  return true;
}
