import { colorEnabled } from './config.js';
import type { AttachmentInfo, MessageRecord } from '../src/index.js';

/** One JSON document on stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function println(line = ''): void {
  process.stdout.write(`${line}\n`);
}

/** Notes for people go to stderr, so stdout stays the command's answer. */
export function note(line: string): void {
  process.stderr.write(`${line}\n`);
}

const useColor = colorEnabled();
const paint = (code: string) => (s: string) => (useColor ? `\x1b[${code}m${s}\x1b[0m` : s);
export const bold = paint('1');
export const dim = paint('2');
export const cyan = paint('36');
export const yellow = paint('33');

/** "2026-01-31 12:00" in UTC: short, sortable, unambiguous. */
export function shortTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
}

/**
 * `2030-01-01 10:00 Europe/Zurich`: an ISO time in the owner's zone, named, so a listing never
 * shows UTC as if it were local. `timeZone` undefined is the system's zone.
 */
export function zonedTime(iso: string, timeZone: string | undefined): string {
  const format = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  });
  const part = Object.fromEntries(
    format.formatToParts(new Date(iso)).map((p) => [p.type, p.value]),
  ) as Record<string, string>;
  const zone = format.resolvedOptions().timeZone;
  return `${part.year}-${part.month}-${part.day} ${part.hour}:${part.minute} ${zone}`;
}

export function oneLine(text: string, max = 100): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

export function formatMessage(m: MessageRecord, options: { full?: boolean } = {}): string {
  const to = m.to ?? 'everyone';
  const flag = m.priority === 'normal' ? '' : ` ${yellow(`[${m.priority}]`)}`;
  const head = `${dim(shortTime(m.created_at))} ${bold(m.from)} → ${to}${flag}  ${cyan(m.id)}`;
  const subject = `  ${bold(m.subject)} ${dim(`(${m.thread_id})`)}`;
  const body = options.full
    ? m.body
        .split('\n')
        .map((l) => `  ${l}`)
        .join('\n')
    : `  ${oneLine(m.body)}`;
  const files = (m.attachments ?? []).map((f) => `\n  ${formatAttachment(f)}`);
  return `${head}\n${subject}\n${body}${files.join('')}`;
}

const SKIPPED: Record<NonNullable<AttachmentInfo['text_skipped']>, string> = {
  timeout: 'took too long',
  memory: 'needed too much memory',
};

/** One file of a message: 📎 name (type, size, sha256 prefix), and why its text was not read. */
export function formatAttachment(f: AttachmentInfo): string {
  const line = `📎 ${f.name} ${dim(`(${f.media_type}, ${formatBytes(f.size)}, ${f.sha256.slice(0, 12)})`)}`;
  return f.text_skipped ? `${line} ${dim(`text not extracted: ${SKIPPED[f.text_skipped]}`)}` : line;
}

/** A size as people read it: 512 B, 3.4 KiB, 12.0 MiB. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1_048_576) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1_048_576).toFixed(1)} MiB`;
}
