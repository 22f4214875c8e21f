import type { Brain } from '../../src/index.js';
import { describeInterruption, lastSideEffect } from '../turn-effects.js';
import { acceptedRoute } from '../conversation/accepted.js';
import type { ChannelTarget, LanePriority, ServiceComponent, ServiceHost } from '../contracts.js';
import type { Driver } from '../permissions/trust.js';
import { chatOfSession, takenUpElsewhere } from '../conversation/sessions.js';

/**
 * Work a crash cut short, taken up on start, in every session a chat can reach: the messages at
 * the end of a session's thread that nothing answered are answered again by one turn when the
 * turn they started had run no tool with side effects; otherwise whoever asked is told what was
 * cut short and what had finished (the notice is stored as the answer, so the next turn's context
 * says so too), and any message after it is answered. The loop stores its input before the model
 * call and the reply at the end, and channels store a message when it arrives
 * (agent/conversation/accepted.ts), so an unanswered message at the end of a thread is work cut
 * short. A message is re-run once: when that run is cut short too, the next start tells whoever
 * asked, once, instead of trying a third time.
 *
 * Other agents' messages are the inbox's (agent/service/inbox.ts) and scheduled work the
 * scheduler's (cron's `onInterrupt`); a session nobody can be told in (a terminal session with no
 * channel to reach the owner) is left for the next turn there.
 */

/** How many messages at the end of a thread are looked at. */
const SCAN = 50;

/** The messages at the end of a thread after the assistant's last word, oldest first. */
function unanswered(brain: Brain, threadId: string, agent: string) {
  const count = brain.messages.thread({ thread_id: threadId, limit: 1 }).thread.message_count;
  if (count === 0) return [];
  const tail = brain.messages.thread({
    thread_id: threadId,
    limit: SCAN,
    offset: Math.max(0, count - SCAN),
  }).messages;
  const lastAnswer = tail.findLastIndex((m) => m.from === agent);
  return tail.slice(lastAnswer + 1);
}

const takenKey = (session: string) => `resume:${session}`;
const toldKey = (session: string) => `resume-told:${session}`;

const excerpt = (body: string) => (body.length > 80 ? `${body.slice(0, 77)}...` : body);

/** Stores a notice as the answer to a message cut short, so the next turn's context says so. */
function answerWith(
  h: ServiceHost,
  threadId: string,
  message: { id: string; from: string },
  notice: string,
  interrupted: Record<string, unknown>,
): void {
  const { brain } = h;
  const agent = h.config().agent;
  brain.batch(() => {
    brain.messages.markRead({ message_id: message.id, agent });
    brain.messages.send({
      from: agent,
      to: message.from,
      thread: threadId,
      reply_to: message.id,
      body: notice,
      metadata: { assistant: { interrupted } },
    });
  });
}

/**
 * `startedAt`: when this service started. A message that came in after it is this process's own
 * (a channel started before the resumer and is answering it), never one a crash cut short; one
 * stored in the very millisecond counts as before, as a crash may leave one there too.
 */
export function createResumer(options: { startedAt?: number } = {}): ServiceComponent {
  return {
    name: 'resume',
    async start(h: ServiceHost) {
      const before = options.startedAt ?? h.clock().getTime();
      for (const session of h.brain.assistant.sessions()) {
        if (takenUpElsewhere(session.name)) continue;
        try {
          await resumeSession(h, session.name, session.thread_id, before);
        } catch (err) {
          h.log('warn', 'resume.failed', {
            session: session.name,
            error: (err as Error).message,
          });
        }
      }
    },
    async stop() {},
  };
}

/**
 * How a stored message may be taken up, decided from what cannot be forged: the session it is in
 * and who sent it. Anyone who can write to the brain can write a message with any metadata into
 * any thread, so a message's metadata never says who drives its turn or where its reply goes:
 * in the owner's session only the owner's own messages are taken up, answered where the owner is
 * (the chat the message names only when it is the owner's own private chat); in a chat's session
 * (`telegram/<chat>`, `discord/<chat>`) only that chat's senders, as contacts, answered there.
 */
interface Resumable {
  driver: Driver;
  priority: LanePriority;
  /** Approvals can be asked (the owner's own chat): the channel runs it with its prompts. */
  asks: boolean;
  /** Where the reply goes; the owner's last chat when absent. */
  route?: ChannelTarget;
  /** The sender, when not the owner. */
  from?: string;
}

function resumable(
  h: ServiceHost,
  session: string,
  message: { from: string; metadata: unknown },
): Resumable | undefined {
  const config = h.config();
  if (session === h.ownerSession()) {
    if (message.from !== config.owner) return undefined;
    const named = acceptedRoute(message.metadata);
    const route = named && ownersChat(h, named) ? named : undefined;
    return {
      driver: 'owner',
      priority: 'owner',
      asks: route !== undefined,
      ...(route ? { route } : {}),
    };
  }
  const chat = chatOfSession(session);
  if (!chat || !message.from.startsWith(`${chat.channel}-`)) return undefined;
  return { driver: 'contact', priority: 'agent', asks: false, route: chat, from: message.from };
}

/** The owner's own private chat: the owner's Telegram id, or where the owner last spoke. */
function ownersChat(h: ServiceHost, route: ChannelTarget): boolean {
  const config = h.config();
  const id = (config.ownerIdentities as Record<string, string | number | undefined>)[route.channel];
  if (route.channel === 'telegram' && id !== undefined && String(id) === route.chatId) return true;
  const last = h.brain.assistant.ownerTarget(config.agent);
  return (
    last !== null &&
    last !== undefined &&
    last.channel === route.channel &&
    last.chat_id === route.chatId
  );
}

async function resumeSession(
  h: ServiceHost,
  session: string,
  threadId: string,
  before: number,
): Promise<void> {
  const { brain } = h;
  const config = h.config();
  const waiting = unanswered(brain, threadId, config.agent).filter(
    (m) => Date.parse(m.created_at) <= before,
  );
  const last = [...waiting].reverse().find((m) => resumable(h, session, m));
  if (!last) return;
  const how = resumable(h, session, last)!;
  const route = how.route;
  // Taken up once: a crash during the retry itself is not run a third time, but told, once.
  if (brain.assistant.schedulerState(takenKey(session)) === last.id) {
    if (brain.assistant.schedulerState(toldKey(session)) === last.id) return;
    brain.assistant.setSchedulerState(toldKey(session), last.id);
    const notice = `I was interrupted twice (the service stopped) while answering "${excerpt(last.body)}", so I have not tried again. Ask again if you still want it.`;
    answerWith(h, threadId, last, notice, { again: true });
    h.log('warn', 'resume.told', { session, message: last.id, again: true });
    await h.deliver(notice, route);
    return;
  }
  brain.assistant.setSchedulerState(takenKey(session), last.id);

  let rest = waiting.slice(0, waiting.indexOf(last) + 1);
  const effect = lastSideEffect(brain, session);
  const cut = effect && rest.find((m) => m.id === effect.message && resumable(h, session, m));
  if (effect && cut) {
    const notice = `I was interrupted (the service stopped) while answering "${excerpt(cut.body)}", ${describeInterruption(effect)}. Ask again if you still want it.`;
    answerWith(h, threadId, cut, notice, { tool: effect.tool, finished: effect.finished });
    h.log('warn', 'resume.told', { session, message: cut.id, tool: effect.tool });
    await h.deliver(notice, resumable(h, session, cut)?.route ?? route);
    rest = rest.slice(rest.indexOf(cut) + 1);
  }
  const input = rest.at(-1);
  if (!input) return;
  h.log('info', 'resume.rerun', { session, message: input.id, waiting: rest.length });
  const channel = route && h.channels?.().find((c) => c.channel === route.channel);
  if (route && channel?.takeUp) {
    // The channel runs it as it runs a message that just arrived: typing, approvals, its reply.
    channel.takeUp(
      route.chatId,
      {
        session,
        text: input.body,
        driver: how.driver,
        ...(how.from === undefined ? {} : { from: how.from }),
        priority: how.priority,
        unattended: !how.asks,
        asks: how.asks,
      },
      input.id,
    );
    return;
  }
  const turn = h.enqueue({
    session,
    text: input.body,
    ...(how.from === undefined ? {} : { from: how.from }),
    messageId: input.id,
    source: 'channel',
    priority: how.priority,
    driver: how.driver,
    unattended: true,
    io: { onText: () => {} },
  });
  void turn.done.then(
    async (result) => {
      if (!result.cancelled && result.reply.trim() !== '') await h.deliver(result.reply, route);
    },
    (err: unknown) => h.log('warn', 'resume.failed', { session, error: (err as Error).message }),
  );
}
