/**
 * What every channel says when a turn does not end in a reply: the same words on Telegram,
 * Discord and the terminal, so the owner reads one assistant.
 */

/** A turn `/stop` cancelled. */
export const STOPPED_TEXT = 'Stopped.';

/** A turn that failed: its error's code, never its message (which may quote the input). */
export function failureText(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return `Sorry, that failed (${typeof code === 'string' ? code : 'ERROR'}). The details are in the assistant's log.`;
}
