import type { Brain } from '../../src/index.js';
import type { AssistantConfig } from '../config.js';
import type { Driver } from '../permissions/trust.js';
import type { ArrivalTurn } from './arrival.js';
import type { ChannelTarget, LanePriority } from '../contracts.js';

/**
 * A chat message is the brain's before the channel confirms it to its platform: it is stored in
 * its session's thread, with what the turn needs to be run again (who drives it, where the reply
 * goes), in the same transaction as the channel's resume point. A crash after that point leaves a
 * stored, unanswered message that the resumer (agent/service/resume.ts) takes up on start; a crash
 * before it leaves the platform to send the update again. Either way it is answered once.
 */

/** Kept in the stored message's metadata, under `turn`. */
export interface AcceptedTurn {
  driver: Driver;
  priority: LanePriority;
  unattended: boolean;
  /** The chat the reply goes to. */
  route: ChannelTarget;
}

/**
 * Stores an arrived message in its session's thread and runs `also` (the resume point) in the
 * same transaction; returns the stored message's id, for the turn's `messageId`.
 *
 * When the session is idle and its thread ends with the same words from the same sender, nothing
 * answered (a turn that failed before its first round), the message is that one said again: it is
 * answered there instead of being stored twice.
 */
export function acceptArrival(
  brain: Brain,
  config: AssistantConfig,
  turn: ArrivalTurn & { idle: boolean },
  route: ChannelTarget,
  also?: () => void,
): string {
  const accepted: AcceptedTurn = {
    driver: turn.driver,
    priority: turn.priority,
    unattended: turn.unattended,
    route,
  };
  return brain.batch(() => {
    const session = brain.assistant.session({
      name: turn.session,
      agent: config.agent,
      owner: config.owner,
    });
    const from = turn.from ?? config.owner;
    const again = turn.idle ? lastMessage(brain, session.thread_id) : undefined;
    if (again && again.from === from && again.body === turn.text) {
      also?.();
      return again.id;
    }
    const sent = brain.messages.send({
      from,
      to: config.agent,
      thread: session.thread_id,
      body: turn.text,
      metadata: { turn: accepted },
    });
    also?.();
    return sent.id;
  });
}

/** What an accepted message's metadata says about its turn; undefined for any other message. */
export function acceptedTurnOf(metadata: unknown): AcceptedTurn | undefined {
  const turn = (metadata as { turn?: Partial<AcceptedTurn> } | null | undefined)?.turn;
  if (!turn || typeof turn !== 'object') return undefined;
  const route = turn.route;
  if (
    typeof turn.driver !== 'string' ||
    typeof turn.priority !== 'string' ||
    typeof turn.unattended !== 'boolean' ||
    !route ||
    typeof route.channel !== 'string' ||
    typeof route.chatId !== 'string'
  )
    return undefined;
  return turn as AcceptedTurn;
}

function lastMessage(brain: Brain, threadId: string) {
  const count = brain.messages.thread({ thread_id: threadId, limit: 1 }).thread.message_count;
  if (count === 0) return undefined;
  return brain.messages.thread({ thread_id: threadId, limit: 1, offset: count - 1 }).messages[0];
}
