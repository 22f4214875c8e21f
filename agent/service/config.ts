import { z } from 'zod';
import { agentName, zodField } from '../../src/index.js';

/**
 * The config keys `brain agent` itself reads (the channels, the scheduler and the MCP client keep
 * theirs in their own files): who the owner is on each channel, the lane, and relays.
 */

/** A Telegram user id: an integer, written as a number or a string of digits. */
const telegramUserId = z
  .union([z.number().int().positive(), z.string().regex(/^\d+$/, 'must be a Telegram user id')])
  .transform(String);
/** A Discord user id: a snowflake, written as a string of digits (a number would lose digits). */
const discordUserId = z
  .string()
  .regex(/^\d{5,25}$/, 'must be a Discord user id (a string of digits)');

/**
 * `owner`: the owner's agent name as before (`"ada"`), or `{name?, telegram?, discord?}` naming
 * also who the owner is on each channel. Messages from these identities go to the owner's one
 * session (`chat/default`), shared with `brain chat`.
 */
export const ownerConfig = z.preprocess(
  // A plain name is the short form of {name}: one schema, so errors name the exact key.
  (value) => (typeof value === 'string' ? { name: value } : value),
  z.strictObject({
    name: zodField(agentName(), z).optional(),
    telegram: telegramUserId.optional(),
    discord: discordUserId.optional(),
  }),
);
export type OwnerFileValue = z.output<typeof ownerConfig>;

/** The owner's identity on each channel, by channel name (`telegram`, `discord`). */
export type OwnerIdentities = Partial<Record<'telegram' | 'discord', string>>;

export const laneConfig = z
  .strictObject({
    /** Sessions whose turns may run at once (one turn per session always). */
    maxConcurrent: z.number().int().min(1).max(16).default(2),
  })
  .prefault({});
export type LaneConfig = z.output<typeof laneConfig>;

/** The name and channel identities written in `owner`, split apart. */
export function ownerParts(value: OwnerFileValue | undefined): {
  name: string | undefined;
  identities: OwnerIdentities;
} {
  if (value === undefined) return { name: undefined, identities: {} };
  const identities: OwnerIdentities = {};
  if (value.telegram !== undefined) identities.telegram = value.telegram;
  if (value.discord !== undefined) identities.discord = value.discord;
  return { name: value.name, identities };
}
