import type { Message } from 'discord.js';
import { readLimited, type IncomingFile } from '../files.js';
import { DEFAULT_DISCORD_API } from './config.js';

/**
 * The files of a Discord message, fetched from where Discord keeps them. A message's attachment
 * carries its own URL, and only a URL on Discord's CDN (https, cdn.discordapp.com or
 * media.discordapp.net) is fetched; with `apiBase` set (a proxy or a test's loopback Discord),
 * its origin is the one other place allowed. Redirects are not followed, so an allowed URL cannot
 * lead elsewhere.
 */

const CDN_HOSTS = new Set(['cdn.discordapp.com', 'media.discordapp.net']);

/** Whether a file's URL may be fetched: Discord's CDN, or the configured API's own origin. */
export function discordFileAllowed(url: string, apiBase: string | undefined): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (u.username !== '' || u.password !== '') return false;
  if (u.protocol === 'https:' && u.port === '' && CDN_HOSTS.has(u.hostname)) return true;
  if (apiBase === undefined || apiBase === DEFAULT_DISCORD_API) return false;
  return u.origin === new URL(apiBase).origin;
}

export function discordFiles(message: Message, apiBase: string | undefined): IncomingFile[] {
  return [...message.attachments.values()].map((a) => ({
    name: a.name,
    mediaType: a.contentType ?? undefined,
    size: a.size,
    download: async (maxBytes, signal) => {
      if (!discordFileAllowed(a.url, apiBase))
        throw new Error("the file's address is not on Discord's CDN");
      const res = await fetch(a.url, { redirect: 'error', ...(signal ? { signal } : {}) });
      if (!res.ok) {
        await res.body?.cancel();
        throw new Error(`Discord's CDN answered ${res.status}`);
      }
      return readLimited(res, maxBytes);
    },
  }));
}
