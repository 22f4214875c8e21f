import type { Brain } from '../../src/index.js';
import { lastSideEffect } from '../turn-effects.js';
import type { ServiceComponent, ServiceHost } from './types.js';

/**
 * Work a crash cut short, taken up on start: the owner's last message with no reply after it is
 * answered again when the turn had run no tool with side effects, and otherwise the owner is
 * told what was interrupted, once. The loop stores the owner's message before the model call and
 * the reply at the end, so an unanswered message at the end of the thread is a turn cut short.
 */

/** The owner's message at the end of a session's thread, when nothing answered it. */
function unanswered(brain: Brain, session: string, owner: string) {
  const found = brain.sessions().find((s) => s.name === session);
  if (!found) return undefined;
  const count = brain.thread({ thread_id: found.thread_id, limit: 1 }).thread.message_count;
  if (count === 0) return undefined;
  const last = brain.thread({ thread_id: found.thread_id, limit: 1, offset: count - 1 })
    .messages[0];
  return last && last.from === owner ? last : undefined;
}

const RESUMED_KEY = 'resume:last';

export function createResumer(): ServiceComponent {
  return {
    name: 'resume',
    async start(h: ServiceHost) {
      const session = h.ownerSession();
      const message = unanswered(h.brain, session, h.config().owner);
      // Taken up once: a crash during the retry itself is not taken up again.
      if (!message || h.brain.schedulerState(RESUMED_KEY) === message.id) return;
      h.brain.setSchedulerState(RESUMED_KEY, message.id);
      const effect = lastSideEffect(h.brain, session);
      if (effect?.message === message.id) {
        h.log('warn', 'resume.told', { session, message: message.id, tool: effect.tool });
        const asked = message.body.length > 80 ? `${message.body.slice(0, 77)}...` : message.body;
        await h.deliver(
          `I was interrupted (the service stopped) while answering "${asked}", after starting ${effect.tool}. Ask again if you still want it.`,
        );
        return;
      }
      h.log('info', 'resume.rerun', { session, message: message.id });
      const turn = h.enqueue({
        session,
        text: message.body,
        messageId: message.id,
        source: 'channel',
        priority: 'owner',
        unattended: true,
        io: { onText: () => {} },
      });
      void turn.done.then(
        async (result) => {
          if (!result.cancelled && result.reply.trim() !== '') await h.deliver(result.reply);
        },
        (err: unknown) => h.log('warn', 'resume.failed', { error: (err as Error).message }),
      );
    },
    async stop() {},
  };
}
