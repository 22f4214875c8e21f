import {
  headMessages,
  keptBlock,
  recordMessages,
  repairHistory,
  type HistoryInput,
} from './history.js';
import type { ChatMessage } from './models/types.js';

/**
 * buildHistory for a session that only grows, at a cost per turn that does not grow with it.
 *
 * repairHistory(P ++ Q) is repairHistory(P) ++ repairHistory(Q) when P's repaired output ends in
 * an assistant message without tool_use and the first message of Q it keeps is the user's:
 * nothing merges across the cut (the roles differ), P's last message pairs with nothing after it,
 * and Q starts with the user's, so "the first message is the user's" adds nothing to it. The part
 * before such a cut is settled: later records cannot change it, so it is built once and kept.
 * Each cut is checked on the repaired output itself; where no check passes, the records after the
 * settled part are built together, as buildHistory would.
 */

/** The part of a session's context that later records cannot change. */
export interface SettledHistory {
  /** How many of the session's first records it covers. */
  count: number;
  /** buildHistory's output for those records: only appended to, every message frozen. */
  readonly messages: ChatMessage[];
}

export function settledHistory(): SettledHistory {
  return { count: 0, messages: [] };
}

/** Cuts tried per call, newest first: past the first, a cut fails only on odd threads. */
const MAX_TRIES = 3;

/**
 * buildHistory(input), given `settled` built from the first `settled.count` of `input.messages`
 * with the same agent, owner, summary and note (a fresh settledHistory() for a new session).
 * Moves `settled` forward to the newest cut that passes the check. The array returned is the
 * caller's; the messages in it before the cut are shared with later calls and frozen.
 */
export function buildHistoryAfter(settled: SettledHistory, input: HistoryInput): ChatMessage[] {
  const records = input.messages;
  const from = settled.count;
  const head = from === 0 ? headMessages(input) : [];
  let tries = 0;
  for (let cut = records.length - 1; cut > from && tries < MAX_TRIES; cut--) {
    // Where a turn starts: a record not the assistant's right after one that is.
    if (records[cut]!.from === input.agent || records[cut - 1]!.from !== input.agent) continue;
    tries++;
    const before = repairHistory(recordMessages(input, records, from, cut, [...head]));
    const after = recordMessages(input, records, cut, records.length);
    if (!endsWithAssistant(before) || firstKeptRole(after) !== 'user') continue;
    for (const m of before) settled.messages.push(frozen(m));
    settled.count = cut;
    return settled.messages.concat(repairHistory(after));
  }
  const rest = repairHistory(recordMessages(input, records, from, records.length, head));
  return settled.messages.concat(rest);
}

/**
 * Whether a repaired list ends with the assistant's message, which then has no tool_use either:
 * repairHistory follows a tool_use with a user message of results.
 */
function endsWithAssistant(messages: ChatMessage[]): boolean {
  return messages[messages.length - 1]?.role === 'assistant';
}

/** The role of the first message repairHistory keeps anything of. */
function firstKeptRole(messages: ChatMessage[]): ChatMessage['role'] | undefined {
  return messages.find((m) => m.content.some(keptBlock))?.role;
}

/** A message no later turn can change: it, its content and its blocks frozen. */
function frozen(m: ChatMessage): ChatMessage {
  for (const b of m.content) Object.freeze(b);
  Object.freeze(m.content);
  return Object.freeze(m);
}
