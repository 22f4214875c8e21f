import type { Brain } from '../../src/index.js';
import { describeInterruption, lastSideEffect } from '../turn-effects.js';
import { acceptedTurnOf } from '../conversation/accepted.js';
import type { ChannelTarget, ServiceComponent, ServiceHost } from '../contracts.js';
import { takenUpElsewhere } from '../conversation/sessions.js';

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

export function createResumer(): ServiceComponent {
  return {
    name: 'resume',
    async start(h: ServiceHost) {
      for (const session of h.brain.assistant.sessions()) {
        if (takenUpElsewhere(session.name)) continue;
        try {
          await resumeSession(h, session.name, session.thread_id);
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

async function resumeSession(h: ServiceHost, session: string, threadId: string): Promise<void> {
  const { brain } = h;
  const config = h.config();
  const waiting = unanswered(brain, threadId, config.agent);
  const last = waiting.at(-1);
  if (!last) return;
  const ownerSession = session === h.ownerSession();
  const route: ChannelTarget | undefined = acceptedTurnOf(last.metadata)?.route;
  // Only where someone can be answered: the owner's session, or a chat a channel stored.
  if (!ownerSession && !route) return;
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

  let rest = waiting;
  const effect = lastSideEffect(brain, session);
  const cut = effect && waiting.find((m) => m.id === effect.message);
  if (effect && cut) {
    const notice = `I was interrupted (the service stopped) while answering "${excerpt(cut.body)}", ${describeInterruption(effect)}. Ask again if you still want it.`;
    answerWith(h, threadId, cut, notice, { tool: effect.tool, finished: effect.finished });
    h.log('warn', 'resume.told', { session, message: cut.id, tool: effect.tool });
    await h.deliver(notice, acceptedTurnOf(cut.metadata)?.route ?? route);
    rest = waiting.slice(waiting.indexOf(cut) + 1);
  }
  const input = rest.at(-1);
  if (!input) return;
  const accepted = acceptedTurnOf(input.metadata);
  const from = input.from === config.owner ? undefined : input.from;
  h.log('info', 'resume.rerun', { session, message: input.id, waiting: rest.length });
  const channel = accepted && h.channels?.().find((c) => c.channel === accepted.route.channel);
  if (accepted && channel?.takeUp) {
    // The channel runs it as it runs a message that just arrived: typing, approvals, its reply.
    channel.takeUp(
      accepted.route.chatId,
      {
        session,
        text: input.body,
        driver: accepted.driver,
        ...(from === undefined ? {} : { from }),
        priority: accepted.priority,
        unattended: accepted.unattended,
        asks: !accepted.unattended,
      },
      input.id,
    );
    return;
  }
  const turn = h.enqueue({
    session,
    text: input.body,
    ...(from === undefined ? {} : { from }),
    messageId: input.id,
    source: 'channel',
    priority: accepted?.priority ?? 'owner',
    ...(accepted ? { driver: accepted.driver } : {}),
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
