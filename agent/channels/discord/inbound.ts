import { untrusted } from '../../untrusted.js';

/** The message without the bot's own mention (`<@id>` or `<@!id>`), spaces tidied. */
export function stripMention(content: string, botId: string): string {
  return content
    .replace(new RegExp(`<@!?${botId}>`, 'g'), ' ')
    .replace(/[ \t]{2,}/g, ' ')
    .trim();
}

export interface RepliedMessage {
  authorName: string;
  content: string;
  byOwner: boolean;
  /** The assistant's own earlier message. */
  byAssistant: boolean;
}

/**
 * What the model is given for one Discord message: the text, preceded by the message it replies
 * to as context. Only the owner's words and the assistant's own are quoted as they are; anyone
 * else's come as untrusted data the model must not take instructions from.
 */
export function turnText(o: { said: string; replied?: RepliedMessage | undefined }): string {
  const r = o.replied;
  if (!r) return o.said;
  const content = r.content === '' ? '(its text is not available)' : r.content;
  let context: string;
  if (r.byAssistant) context = `(Replying to your earlier message:)\n${quote(content)}`;
  else if (r.byOwner) context = `(Replying to my earlier message:)\n${quote(content)}`;
  else
    context = `(Replying to a message by ${r.authorName} on Discord:)\n${untrusted(`discord:${r.authorName}`, content)}`;
  return `${context}\n\n${o.said}`;
}

function quote(text: string): string {
  return text
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');
}
