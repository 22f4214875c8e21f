import { guardStorage } from './db/guard.js';
import { writeWithoutWaiting } from './db/no-wait.js';
import { poll, touchAgent, type PollResult } from './messaging/poll.js';
import { openContext, type OpenBrainOptions } from './open-context.js';

/**
 * The smallest handle on a brain: an agent's unread count and its last-seen time. Agents' hooks
 * run `brain poll` many times a minute, so this loads only the messaging modules it needs, not
 * the whole library (search, embedding, transfer, maintenance …) that `openBrain` wires up.
 * It behaves as the same methods of `Brain` do: same checks, same errors, same WAL upkeep.
 */
export interface Poller {
  readonly path: string;
  poll(agent: string): PollResult;
  touchAgent(name: string, options?: { wait?: boolean }): boolean;
  close(): void;
}

export function openPoller(options: OpenBrainOptions): Poller {
  // It never searches: no ranking extension to load.
  const { ctx, wal } = openContext({ ...options, rankFunction: false });
  const poller: Poller = {
    path: options.dbPath,
    poll: (agent) => poll(ctx, agent),
    touchAgent: (name, options) => {
      if (options?.wait === false) return writeWithoutWaiting(ctx.db, () => touchAgent(ctx, name));
      touchAgent(ctx, name);
      return true;
    },
    close: () => {
      if (ctx.db.open) ctx.db.close();
    },
  };
  return guardStorage(poller, options.dbPath, wal.check);
}
