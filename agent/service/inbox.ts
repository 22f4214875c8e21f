import {
  watchBrain,
  type ArrivedMessage,
  type BrainWatcher,
  type WatchTimers,
} from '../../src/index.js';
import { describeInterruption, lastSideEffect } from '../turn-effects.js';
import type { ServiceComponent, ServiceHost } from '../contracts.js';
import { inboxSession } from '../conversation/sessions.js';

/**
 * The inbox watcher: a brain message addressed to the assistant's agent name by another agent
 * (over MCP or the CLI) starts an unattended turn with priority `agent` in the session
 * `inbox/<thread_id>`, conducted in the message's own thread: the message is the turn's input as
 * it is (not copied), and the reply is stored once, there, `reply_to` it; then the message is
 * acknowledged. The session's context is that thread (the sender's words untrusted data, `from`).
 * With `relayToOwner`, the exchange is also delivered to the owner. Messages unread when the
 * service starts are answered too; a turn that fails before its reply is stored leaves the
 * message unread, for the next start, which answers it again, or, when the turn had started a
 * tool with side effects, tells the sender so in the thread instead of running it twice.
 *
 * Not answered: the assistant's own messages, broadcasts, and anything in the thread of another
 * session (the owner's chat, a Telegram chat: those messages are that session's turns).
 */

export { inboxSession };

export interface InboxOptions {
  /** The brain watcher's tick (default 50 ms) and timers, for tests. */
  intervalMs?: number;
  timers?: WatchTimers;
}

export function createInboxWatcher(options: InboxOptions = {}): ServiceComponent {
  let host: ServiceHost | undefined;
  let watcher: BrainWatcher | undefined;
  let unsubscribe: (() => void) | undefined;
  /** Messages taken up in this run: each is answered once, even when seen twice. */
  const taken = new Set<string>();
  const pending = new Set<Promise<void>>();

  const consider = (id: string) => {
    const h = host;
    if (!h || taken.has(id)) return;
    const { brain, log } = h;
    const config = h.config();
    const message = brain.messages.getMessage(id);
    if (!message || message.to !== config.agent || message.from === config.agent) return;
    const session = inboxSession(message.thread_id);
    const current = brain.assistant.sessionOfThread(message.thread_id);
    if (current && current.name !== session) return;
    taken.add(id);
    try {
      brain.assistant.sessionInThread({
        name: session,
        agent: config.agent,
        owner: config.owner,
        thread_id: message.thread_id,
      });
    } catch (err) {
      log('warn', 'inbox.failed', {
        id,
        code: (err as { code?: string }).code ?? 'ERROR',
        error: (err as Error).message,
      });
      return;
    }
    const effect = lastSideEffect(brain, session);
    if (effect?.message === message.id) {
      // Cut short after a tool with side effects had started: told, not run twice.
      brain.batch(() => {
        brain.messages.send({
          from: config.agent,
          to: message.from,
          thread: message.thread_id,
          reply_to: message.id,
          body: `I was interrupted (the service stopped) while answering this, ${describeInterruption(effect)}. Send it again if you still want it.`,
          metadata: {
            assistant: { interrupted: { tool: effect.tool, finished: effect.finished } },
          },
        });
        brain.messages.ack({ message_id: message.id, agent: config.agent });
      });
      log('warn', 'inbox.told', { id, tool: effect.tool });
      return;
    }
    const text = message.subject ? `Subject: ${message.subject}\n\n${message.body}` : message.body;
    log('info', 'inbox.message', { id, from: message.from, thread: message.thread_id });
    const turn = h.enqueue({
      session,
      text,
      from: message.from,
      messageId: message.id,
      source: 'inbox',
      driver: 'agent',
      priority: 'agent',
      unattended: true,
      io: { onText() {} },
    });
    const work = turn.done
      .then(async (result) => {
        // The turn stored its reply in the thread (even a cancelled one says so there).
        brain.messages.ack({ message_id: message.id, agent: config.agent });
        log('info', 'inbox.replied', {
          id,
          reply: result.messageIds.reply,
          thread: message.thread_id,
          stop: result.stopReason,
        });
        if (result.cancelled || result.reply.trim() === '') return;
        if (h.config().relayToOwner) {
          await h.deliver(
            `${message.from} wrote to ${config.agent}:\n${text}\n\n${config.agent} answered:\n${result.reply}`,
          );
        }
      })
      .catch((err: unknown) => {
        // Left unread: the next start of the service answers it.
        log('warn', 'inbox.failed', {
          id,
          code: (err as { code?: string }).code ?? 'ERROR',
          error: (err as Error).message,
        });
      })
      .finally(() => pending.delete(work));
    pending.add(work);
  };

  const onMessages = (batch: ArrivedMessage[]) => {
    const agent = host?.config().agent;
    for (const m of batch) {
      if (agent && m.from !== agent && m.recipients.includes(agent)) consider(m.id);
    }
  };

  return {
    name: 'inbox',
    async start(h) {
      host = h;
      watcher = watchBrain(h.brain, {
        intervalMs: options.intervalMs,
        timers: options.timers,
        onError: (err) => h.log('warn', 'inbox.watch_failed', { error: (err as Error).message }),
      });
      unsubscribe = watcher.onMessages(onMessages);
      // What arrived while the service was not running.
      for (const m of h.brain.messages.peek({ agent: h.config().agent, limit: 1000 }))
        consider(m.id);
    },
    async stop() {
      unsubscribe?.();
      watcher?.close();
      unsubscribe = undefined;
      watcher = undefined;
      // Turns already queued are the host's to finish or cancel; their replies still go out.
      await Promise.allSettled([...pending]);
      host = undefined;
    },
    async check(h) {
      const unread = h.brain.messages.peek({ agent: h.config().agent, limit: 1000 }).length;
      return [{ name: 'inbox', ok: true, detail: `${unread} unread for ${h.config().agent}` }];
    },
  };
}
