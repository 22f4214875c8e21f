import { z } from 'zod';

/** `delegation` in the assistant's config: what a task handed to a sub-turn may spend. */
export const delegationConfig = z
  .strictObject({
    /** Rounds of tool calls one task may make (the turn's own limit is `maxRounds`). */
    maxRounds: z.number().int().min(1).max(500).default(10),
    /** Tokens its model calls may use in all (input, output and cache, as each call reports). */
    maxTokens: z.number().int().min(1000).default(200_000),
    /** Dollars its model calls may cost, where the model's price is known (src/assistant/prices.ts). */
    maxCostUsd: z.number().min(0).max(1000).default(1),
    /** Levels of delegation: 1, a task may not delegate further; 0, delegate_task is not offered. */
    maxDepth: z.number().int().min(0).max(3).default(1),
    /** The longest answer a task hands back; the rest is cut, and says so. */
    maxResultChars: z.number().int().min(200).max(100_000).default(4000),
  })
  .prefault({});
export type DelegationConfig = z.output<typeof delegationConfig>;
