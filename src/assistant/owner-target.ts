import { z } from 'zod';
import { isoNow, isoOfMillis, millisOf } from '../clock.js';
import type { BrainContext } from '../context.js';
import { agentName, parseInput, text } from '../validation.js';

/**
 * Where an assistant last heard its owner (a channel and a chat in it): the default target of
 * its proactive messages. One row per assistant; setting it again replaces it.
 */
export interface OwnerTarget {
  agent: string;
  channel: string;
  chat_id: string;
  updated_at: string;
}

const setInput = z.strictObject({
  agent: agentName,
  channel: text(40).regex(/^[a-z][a-z0-9_-]*$/, 'must be a channel name such as telegram'),
  chat_id: text(200).min(1, 'must not be empty'),
});
export type SetOwnerTargetInput = z.input<typeof setInput>;

interface OwnerTargetRow {
  agent: string;
  channel: string;
  chat_id: string;
  updated_at: number;
}

export function setOwnerTarget(ctx: BrainContext, input: SetOwnerTargetInput): OwnerTarget {
  const args = parseInput(setInput, input);
  const now = millisOf(isoNow(ctx.clock));
  ctx.db
    .transaction(() => {
      ctx.q
        .get(
          `INSERT INTO owner_targets (agent, channel, chat_id, updated_at) VALUES (?, ?, ?, ?)
           ON CONFLICT (agent) DO UPDATE SET channel = excluded.channel,
             chat_id = excluded.chat_id, updated_at = excluded.updated_at`,
        )
        .run(args.agent, args.channel, args.chat_id, now);
    })
    .immediate();
  return { ...args, updated_at: isoOfMillis(now)! };
}

/** The assistant's owner target, or null when the owner has not spoken on any channel yet. */
export function getOwnerTarget(ctx: BrainContext, agent: string): OwnerTarget | null {
  const name = parseInput(agentName, agent);
  const row = ctx.q
    .get('SELECT agent, channel, chat_id, updated_at FROM owner_targets WHERE agent = ?')
    .get(name) as OwnerTargetRow | undefined;
  return row ? { ...row, updated_at: isoOfMillis(row.updated_at)! } : null;
}
