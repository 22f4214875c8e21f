import { z } from 'zod';

/** A Discord id (a snowflake): digits, written as a string since it exceeds a safe JSON number. */
const snowflake = z
  .string()
  .regex(/^\d{1,20}$/, 'must be a Discord id: digits, written as a string ("123…")');

/**
 * `discord` in the assistant's config file. The bot token is not here: it comes from
 * `DISCORD_BOT_TOKEN` only (agent/config.ts).
 */
export const discordConfigSchema = z.strictObject({
  /** Users whose DMs and mentions get an answer; empty admits nobody. */
  allowedUserIds: z.array(snowflake).default([]),
  /** When given, guild messages count only in these guilds (DMs are unaffected). */
  guildIds: z.array(snowflake).optional(),
  /** The REST API root (default `https://discord.com/api`); the gateway URL comes from it. */
  apiBase: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
});

export type DiscordFileConfig = z.output<typeof discordConfigSchema>;

/** The channel's settings as resolved: the file's keys and the token from the environment. */
export interface DiscordConfig extends DiscordFileConfig {
  token: string | undefined;
}

export const DEFAULT_DISCORD_API = 'https://discord.com/api';
