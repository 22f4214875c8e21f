import { untrusted } from '../untrusted.js';
import type { ArrivalTurn, ServiceHost } from '../contracts.js';
import { channelSession } from './sessions.js';

export type { ArrivalTurn } from '../contracts.js';

/**
 * What a chat message becomes: the one place that decides, for every channel, whose turn it is,
 * which session it belongs to, whether anyone can be asked for an approval, and which of its
 * words are the sender's own. Channels translate their updates into an Arrival and enqueue what
 * comes back; none of them decides policy on its own.
 */

/** A message as a channel received it. */
export interface Arrival {
  channel: 'telegram' | 'discord';
  chatId: string;
  userId: string;
  /** A private chat with the bot (a Telegram private chat, a Discord DM). */
  direct: boolean;
  /** What the sender wrote, the bot's mention taken out. */
  text: string;
  /** Forwarded from someone: the words are not the sender's own (a label of where from). */
  forwardedFrom?: string | undefined;
  /** The message it replies to or quotes, when the channel has its text. */
  quoted?:
    | {
        author: string;
        text: string;
        byOwner: boolean;
        /** The assistant's own earlier message. */
        byAssistant: boolean;
      }
    | undefined;
}

/**
 * The owner's turn is the owner writing in a private chat with the bot: only there are the owner's
 * tools and data offered and approvals asked. Anyone else, and the owner in a group (where the
 * reply is read by everyone in it), is a contact: their own session, their words data, nobody to
 * ask. A forwarded message and a quoted message by someone else are foreign in any turn.
 */
export function arrivalTurn(host: ServiceHost, arrival: Arrival): ArrivalTurn {
  const isOwner = host.isOwner({ channel: arrival.channel, userId: arrival.userId });
  const owner = isOwner && arrival.direct;
  if (owner) host.noteOwnerTarget({ channel: arrival.channel, chatId: arrival.chatId });
  const text = turnText(arrival, owner);
  if (owner)
    return {
      session: host.ownerSession(),
      text,
      driver: 'owner',
      priority: 'owner',
      unattended: false,
      asks: true,
    };
  return {
    session: channelSession(arrival.channel, arrival.chatId),
    text,
    driver: 'contact',
    from: `${arrival.channel}-${arrival.userId}`,
    priority: 'agent',
    unattended: true,
    asks: false,
  };
}

/**
 * The sender's words, preceded by the message they reply to. Only the owner's own words, in the
 * owner's turn, are quoted as they are; anyone else's, the bot's own included, come as untrusted
 * data. A forwarded message is someone else's words however it arrived.
 */
export function turnText(arrival: Arrival, ownerTurn: boolean): string {
  const said = arrival.forwardedFrom
    ? `(A forwarded message, from ${label(arrival.forwardedFrom)}:)\n${untrusted(`${arrival.channel}:forwarded`, arrival.text)}`
    : arrival.text;
  const q = arrival.quoted;
  if (!q) return said;
  const content = q.text === '' ? '(its text is not available)' : q.text;
  let context: string;
  // The bot's own messages in a chat carry what it relayed (another agent's words, a reminder
  // set by a tainted turn, a mail summary): quoted back, they are data like anyone else's.
  if (q.byAssistant)
    context = `(Replying to your earlier message on ${arrival.channel}:)\n${untrusted(`${arrival.channel}:assistant`, content)}`;
  else if (q.byOwner && ownerTurn) context = `(Replying to my earlier message:)\n${quote(content)}`;
  else
    context = `(Replying to a message by ${label(q.author)} on ${arrival.channel}:)\n${untrusted(`${arrival.channel}:${label(q.author)}`, content)}`;
  return `${context}\n\n${said}`;
}

/** A name as it may appear in the prompt: one line, no markup, short. */
function label(name: string): string {
  return (
    name
      .replace(/[\s<>"]+/g, ' ')
      .trim()
      .slice(0, 64) || 'someone'
  );
}

function quote(text: string): string {
  return text
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');
}
