import type { Brain, PreparedAttachment } from '../../src/index.js';
import type { AssistantConfig } from '../config.js';
import { saidAgain } from '../history.js';
import type { ArrivalTurn } from './arrival.js';
import type { ChannelTarget } from '../contracts.js';

/**
 * A chat message is the brain's before the channel confirms it to its platform: it is stored in
 * its session's thread, with the chat it came from, in the same transaction as the channel's
 * resume point. A crash after that point leaves a
 * stored, unanswered message that the resumer (agent/service/resume.ts) takes up on start; a crash
 * before it leaves the platform to send the update again. Either way it is answered once.
 */

/**
 * Stores an arrived message in its session's thread and runs `also` (the resume point) in the
 * same transaction; returns the stored message's id, for the turn's `messageId`.
 *
 * When the session is idle and its thread ends with the same words from the same sender, nothing
 * answered (a turn that failed before its first round), the message is that one said again: it is
 * answered there instead of being stored twice. `files` (made ready by `brain.messages.attach`)
 * are stored as the message's attachments; a message with files is never taken for one said again.
 */
export function acceptArrival(
  brain: Brain,
  config: AssistantConfig,
  turn: ArrivalTurn & { idle: boolean },
  route: ChannelTarget,
  also?: () => void,
  files: readonly PreparedAttachment[] = [],
): string {
  return brain.batch(() => {
    const session = brain.assistant.session({
      name: turn.session,
      agent: config.agent,
      owner: config.owner,
    });
    const from = turn.from ?? config.owner;
    const again =
      turn.idle && files.length === 0
        ? saidAgain(brain, session.thread_id, from, turn.text)
        : undefined;
    if (again) {
      also?.();
      return again.id;
    }
    const sent = brain.messages.send(
      {
        from,
        to: config.agent,
        thread: session.thread_id,
        body: turn.text,
        metadata: { turn: { route } },
      },
      files,
    );
    also?.();
    return sent.id;
  });
}

/**
 * The chat an accepted message says it came from; undefined for any other message. Only a hint:
 * anyone who can write to the brain can write this (agent/service/resume.ts checks it).
 */
export function acceptedRoute(metadata: unknown): ChannelTarget | undefined {
  const route = (metadata as { turn?: { route?: Partial<ChannelTarget> } } | null | undefined)?.turn
    ?.route;
  return route && typeof route.channel === 'string' && typeof route.chatId === 'string'
    ? { channel: route.channel, chatId: route.chatId }
    : undefined;
}
