import { BrainError, type Brain, type PreparedAttachment } from '../../src/index.js';
import type { Log } from '../log.js';
import { untrusted } from '../untrusted.js';

/*
 * Files sent to the assistant in a chat (a Telegram photo or document, a Discord attachment).
 * The channel downloads each within the size limit, the brain keeps them as attachments of the
 * sender's message, and the message's text tells the model what came: each file's name, type and
 * size, and the text read from it.
 *
 * Trust: a file the owner sends is the owner's to send, but what is written inside it is not the
 * owner's words (a PDF from a mail, a screenshot of someone's chat, a page saved from the web). Its
 * text goes to the model as data from outside the owner, in an `<untrusted>` block, so the turn is
 * tainted as after a forwarded message: from then on a call that sends data out asks the owner. A
 * stranger's file in a group is the stranger's message: all of it is data, as their text is.
 */

/** The most characters of one file's text the model is shown with the message. */
export const FILE_TEXT_CHARS = 8_000;

/** A file a chat message carries, before it is downloaded. */
export interface IncomingFile {
  name: string;
  /** What the platform says it is; the brain sniffs the bytes itself. */
  mediaType?: string | undefined;
  /** What the platform says its size is, when it says. */
  size?: number | undefined;
  /** Downloads it, refusing more than `maxBytes`. */
  download(maxBytes: number, signal?: AbortSignal): Promise<Uint8Array>;
}

/** A size as people read it: 812 B, 3.1 KiB, 12.4 MiB. */
export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** The reply to a file over the limit: nothing of the message is kept. */
export function tooLargeText(name: string, size: number, limit: number): string {
  return `${oneLine(name)} is ${sizeText(size)}; I can take files up to ${sizeText(limit)}. Nothing was kept: send a smaller file, or a link to it.`;
}

/** A name as it may appear in the prompt: one line, no markup, short. */
function oneLine(name: string): string {
  return (
    name
      .replace(/[\s<>"`]+/g, ' ')
      .trim()
      .slice(0, 120) || 'file'
  );
}

/**
 * The message's text for the model: what the sender wrote, then each file's name, type and size
 * and the start of its text, marked as data (see above).
 */
export function withFilesNote(
  text: string,
  channel: string,
  files: readonly PreparedAttachment[],
): string {
  if (files.length === 0) return text;
  const parts = files.map((f) => {
    const head = `📎 ${oneLine(f.name)} (${f.media_type}, ${sizeText(f.size)}, sha256 ${f.sha256.toString('hex').slice(0, 12)})`;
    if (!f.text || f.text.trim() === '') return head;
    const cut = f.text.length > FILE_TEXT_CHARS;
    const shown = cut ? f.text.slice(0, FILE_TEXT_CHARS) : f.text;
    const note = cut ? `\n[the first ${FILE_TEXT_CHARS} of ${f.text.length} characters]` : '';
    return `${head}, its text:\n${untrusted(`${channel}:file`, shown + note)}`;
  });
  const said = text.trim() === '' ? '' : `${text}\n\n`;
  return `${said}(Sent with ${files.length === 1 ? 'a file' : `${files.length} files`}:)\n${parts.join('\n')}`;
}

/**
 * Reads a response's body, refusing more than `maxBytes` whatever its length header says (a
 * server may lie about a size, or send none).
 */
export async function readLimited(res: Response, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel();
    throw new FileTooLarge(declared);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (res.body) {
    const reader = res.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.length;
      if (total > maxBytes) {
        await reader.cancel();
        throw new FileTooLarge(total);
      }
      chunks.push(value);
    }
  }
  return Buffer.concat(chunks, total);
}

/** A download refused for its size: `size` is what was seen of it (at least). */
export class FileTooLarge extends Error {
  constructor(readonly size: number) {
    super(`the file is larger than the limit (${size} bytes seen)`);
    this.name = 'FileTooLarge';
  }
}

/**
 * Downloads a message's files and makes them ready to store (`brain.messages.attach`), or says in
 * a reply why not. A size the platform reports is checked before anything is downloaded, the
 * download stops at the limit whatever the server sends, and the brain checks its own limits
 * (the file, the brain's total) before it writes anything; a refusal keeps nothing.
 */
export async function receiveFiles(
  brain: Brain,
  files: readonly IncomingFile[],
  options: { platformMax: number; log: Log; channel: string; signal?: AbortSignal },
): Promise<{ prepared: PreparedAttachment[] } | { refused: string }> {
  const max = Math.min(brain.messages.maxAttachmentBytes, options.platformMax);
  const refuse = (reason: string, name: string, size: number) => {
    options.log('info', `${options.channel}.file_refused`, { reason, size, limit: max });
    return { refused: tooLargeText(name, size, max) };
  };
  for (const f of files)
    if (f.size !== undefined && f.size > max) return refuse('declared_size', f.name, f.size);
  const inputs = [];
  for (const f of files) {
    try {
      const data = await f.download(max, options.signal);
      inputs.push({ name: f.name, data, media_type: f.mediaType });
    } catch (err) {
      if (err instanceof FileTooLarge) return refuse('downloaded_size', f.name, err.size);
      options.log('warn', `${options.channel}.file_failed`, { error: (err as Error).message });
      return { refused: `I could not download ${oneLine(f.name)}; nothing was kept. Try again?` };
    }
  }
  try {
    return { prepared: await brain.messages.attach(inputs) };
  } catch (err) {
    if (!(err instanceof BrainError && err.code === 'INVALID_INPUT')) throw err;
    options.log('info', `${options.channel}.file_refused`, { reason: 'brain', error: err.message });
    return { refused: `I cannot keep that: ${err.message}. Nothing was kept.` };
  }
}
