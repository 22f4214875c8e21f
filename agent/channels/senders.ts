import type { AssistantConfig } from '../config.js';
import type { Log } from '../log.js';
import type { Channel } from '../contracts.js';
import { DEFAULT_DISCORD_API } from './discord/config.js';
import { splitMessage } from './split.js';
import { htmlToPlain, renderTelegramHtml } from './telegram/render.js';
import { splitTelegramHtml } from './telegram/split.js';

const DISCORD_LIMIT = 2000;

/**
 * Send-only channels for one-shot commands (`brain heartbeat`, `brain cron run`): each configured
 * channel's send API with its token (Telegram `sendMessage`, Discord REST), no polling and no
 * gateway, so a command can deliver while `brain agent` polls with the same token. A channel's
 * library is imported only when the config has that channel.
 */
export async function sendOnlyChannels(config: AssistantConfig, log: Log): Promise<Channel[]> {
  const channels: Channel[] = [];
  const telegram = config.telegram;
  if (telegram?.token) {
    const { Api, GrammyError } = await import('grammy');
    const api = new Api(telegram.token, telegram.apiRoot ? { apiRoot: telegram.apiRoot } : {});
    channels.push(
      sender('telegram', async (chatId, text) => {
        const parts = splitTelegramHtml(renderTelegramHtml(text));
        for (const part of parts) {
          const options = { link_preview_options: { is_disabled: true } };
          try {
            await api.sendMessage(chatId, part, { ...options, parse_mode: 'HTML' });
          } catch (err) {
            // The rendering was refused: the same words as plain text, as the channel does.
            if (!(err instanceof GrammyError && /can't parse entities/i.test(err.description)))
              throw err;
            log('warn', 'telegram.parse_fallback', { chat: chatId, error: err.description });
            await api.sendMessage(chatId, htmlToPlain(part), options);
          }
        }
      }),
    );
  }
  const discord = config.discord;
  if (discord?.token) {
    const { REST, Routes } = await import('discord.js');
    const rest = new REST({ api: discord.apiBase ?? DEFAULT_DISCORD_API }).setToken(discord.token);
    channels.push(
      sender('discord', async (channelId, text) => {
        for (const content of splitMessage(text, DISCORD_LIMIT))
          await rest.post(Routes.channelMessages(channelId), {
            // The model's text never pings anyone.
            body: { content, allowed_mentions: { parse: [] } },
          });
      }),
    );
  }
  return channels;
}

function sender(
  channel: Channel['channel'],
  notify: (chatId: string, text: string) => Promise<void>,
): Channel {
  return {
    name: `${channel}-send`,
    channel,
    async start() {},
    async stop() {},
    notify,
  };
}
