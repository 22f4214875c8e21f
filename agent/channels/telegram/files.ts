import type { Api } from 'grammy';
import type { Message } from 'grammy/types';
import { FileTooLarge, readLimited, type IncomingFile } from '../files.js';

/**
 * The files of a Telegram message: a photo (its largest size), a document, a voice note, an audio
 * file. Each is fetched the Bot API's way: getFile gives a path, and the bytes are at
 * `<apiRoot>/file/bot<token>/<path>`. The Bot API serves files of up to 20 MB this way.
 */

/** The largest file the Bot API lets a bot download. */
export const TELEGRAM_DOWNLOAD_MAX = 20 * 1000 * 1000;

interface FileRef {
  file_id: string;
  file_size?: number | undefined;
}

/** What the message carries, in the order Telegram gives it (one file per message). */
export function telegramFiles(
  msg: Message,
  api: Api,
  where: { token: string; apiRoot: string },
): IncomingFile[] {
  const found: Array<{ ref: FileRef; name: string; mediaType?: string | undefined }> = [];
  const id = msg.message_id;
  if (msg.photo && msg.photo.length > 0) {
    // Telegram lists a photo's sizes from small to large.
    const largest = msg.photo.reduce((a, b) => (b.width * b.height > a.width * a.height ? b : a));
    found.push({ ref: largest, name: `photo-${id}.jpg`, mediaType: 'image/jpeg' });
  }
  if (msg.document)
    found.push({
      ref: msg.document,
      name: msg.document.file_name ?? `document-${id}`,
      mediaType: msg.document.mime_type,
    });
  if (msg.voice)
    found.push({
      ref: msg.voice,
      name: `voice-${id}.ogg`,
      mediaType: msg.voice.mime_type ?? 'audio/ogg',
    });
  if (msg.audio)
    found.push({
      ref: msg.audio,
      name: msg.audio.file_name ?? `audio-${id}`,
      mediaType: msg.audio.mime_type,
    });
  return found.map(({ ref, name, mediaType }) => ({
    name,
    mediaType,
    size: ref.file_size,
    download: (maxBytes, signal) => download(api, where, ref.file_id, maxBytes, signal),
  }));
}

async function download(
  api: Api,
  where: { token: string; apiRoot: string },
  fileId: string,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<Uint8Array> {
  const file = await api.getFile(fileId);
  if (file.file_size !== undefined && file.file_size > maxBytes)
    throw new FileTooLarge(file.file_size);
  if (!file.file_path) throw new Error('Telegram gave no path for the file');
  const path = file.file_path.split('/').map(encodeURIComponent).join('/');
  // The URL holds the bot's token: it is never logged, and errors name only the status.
  const res = await fetch(`${where.apiRoot}/file/bot${where.token}/${path}`, {
    ...(signal ? { signal } : {}),
  });
  if (!res.ok) {
    await res.body?.cancel();
    throw new Error(`Telegram answered ${res.status} to the file's download`);
  }
  return readLimited(res, maxBytes);
}
