import { z } from 'zod';

/**
 * `telegram` in the assistant's config. The bot token is never written here: it comes from
 * `TELEGRAM_BOT_TOKEN` (read by agent/config.ts).
 */
export const telegramConfigSchema = z.strictObject({
  /**
   * Chats served without pairing: private chats (the user's id) and groups (negative ids).
   * Empty admits nobody; senders of private chats can still ask to be paired.
   */
  allowedChatIds: z
    .array(
      z
        .number()
        .int()
        .refine((n) => n !== 0, 'must not be 0'),
    )
    .default([]),
  /** The Bot API's root, for a local Bot API server (default https://api.telegram.org). */
  apiRoot: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  /** Groups on the allowlist: served at all, and only when the bot is mentioned or replied to. */
  groups: z
    .strictObject({
      enabled: z.boolean().default(true),
      requireMention: z.boolean().default(true),
    })
    .prefault({}),
});

export type TelegramFileConfig = z.output<typeof telegramConfigSchema>;

/** The running Telegram config: the file's keys with the token from the environment. */
export interface TelegramConfig extends TelegramFileConfig {
  /** `TELEGRAM_BOT_TOKEN`; absent means the channel cannot start. */
  token: string | undefined;
}
