/**
 * Every session's name, made here and nowhere else. A session is one conversation with its own
 * thread in the brain; its name says where its turns come from, which is also where the resumer
 * and `/status` look to know what it is.
 */

/** A terminal conversation, `brain chat --session NAME`. */
export const chatSession = (name: string) => `chat/${name}`;

/** The owner's one conversation: `brain chat`'s default, and the owner's private chats. */
export const OWNER_SESSION = chatSession('default');

/** A Telegram or Discord chat that is not the owner's private one (a contact, a group). */
export const channelSession = (channel: string, chatId: string) => `${channel}/${chatId}`;

/** The chat a Telegram or Discord chat's session is of; undefined for any other session. */
export function chatOfSession(session: string): { channel: string; chatId: string } | undefined {
  const m = /^(telegram|discord)\/(-?\d+)$/.exec(session);
  return m ? { channel: m[1]!, chatId: m[2]! } : undefined;
}

/** Another agent's thread, conducted in that thread. */
export const inboxSession = (threadId: string) => `inbox/${threadId}`;

/** A cron job with `session: "isolated"`. */
export const cronSession = (job: string) => `cron/${job}`;

/** A mail watcher's turns. */
export const emailSession = (job: string) => `email/${job}`;

/** A task delegated to a sub-turn (agent/delegation/): its own conversation. */
export const taskSession = (id: number) => `task/${id}`;

/** The heartbeat's turns. */
export const HEARTBEAT_SESSION = 'heartbeat';

/** Sessions whose cut-short work the scheduler or the inbox takes up, not the resumer. */
export function takenUpElsewhere(session: string): boolean {
  return (
    session.startsWith('inbox/') ||
    session.startsWith('cron/') ||
    session.startsWith('email/') ||
    // A task cut short is not run again: its row reads as interrupted.
    session.startsWith('task/') ||
    session === HEARTBEAT_SESSION
  );
}
