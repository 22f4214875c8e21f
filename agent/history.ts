import { z } from 'zod';
import type { Brain, MessageRecord } from '../src/index.js';
import type { ChatMessage, ContentBlock, ToolResultBlock, ToolUseBlock } from './models/types.js';
import { untrusted } from './untrusted.js';

/**
 * The model's context, rebuilt from the session's thread alone: the latest compaction summary,
 * then every message after it. Pure functions: the loop reads the brain, these shape what it read.
 */

/** The result a tool_use gets when its own result never made it into the thread. */
export const INTERRUPTED_RESULT = 'no result: the turn was interrupted';

/** What a reply's `metadata.assistant` holds; anything else in a message is not trusted to be it. */
const textBlock = z.object({ type: z.literal('text'), text: z.string() });
const toolUseBlock = z.object({
  type: z.literal('tool_use'),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.record(z.string(), z.unknown()),
});
const toolResultBlock = z.object({
  type: z.literal('tool_result'),
  tool_use_id: z.string().min(1),
  content: z.string(),
  is_error: z.boolean().optional(),
});
const round = z.object({
  content: z.array(z.union([textBlock, toolUseBlock])),
  results: z.array(toolResultBlock),
});
export type Round = z.output<typeof round>;
const assistantMeta = z.object({ rounds: z.array(round).default([]) });

/**
 * Each record's rounds, checked once: a long-running process rebuilds the context from the same
 * records every turn (agent/compaction.ts SessionCache), and checking costs more than the rest.
 */
const checked = new WeakMap<MessageRecord, Round[]>();

/** The tool-using rounds stored on one of the assistant's replies; [] when it has none or they are malformed. */
export function roundsOf(message: MessageRecord): Round[] {
  let rounds = checked.get(message);
  if (!rounds) {
    const parsed = assistantMeta.safeParse(message.metadata.assistant);
    rounds = parsed.success ? parsed.data.rounds : [];
    checked.set(message, rounds);
  }
  return rounds;
}

export interface HistoryInput {
  /** The assistant's and the owner's agent names: who is "assistant" and who is "user". */
  agent: string;
  owner: string;
  /** The latest compaction summary, if any; `messages` are those after the message it covers. */
  summary?: string;
  /** Said to the model before the messages, e.g. that older ones were left out. */
  note?: string;
  messages: MessageRecord[];
}

/** The text a summary becomes: marked as a summary, so the model does not take it for the user's words. */
export function summaryText(summary: string): string {
  return `${SUMMARY_HEAD} (written when older turns were compacted; not a message from the user):\n<summary>\n${summary}\n</summary>`;
}

const SUMMARY_HEAD = 'Summary of the conversation so far';
const NOTE_HEAD = '(Note: ';

/** Whether a user-side text is the summary or the note before the messages: not the user's words. */
export function isHeadText(text: string): boolean {
  return text.startsWith(SUMMARY_HEAD) || text.startsWith(NOTE_HEAD);
}

/** Thread messages → the model's alternating user/assistant messages, repaired. */
export function buildHistory(input: HistoryInput): ChatMessage[] {
  const out = headMessages(input);
  recordMessages(input, input.messages, 0, input.messages.length, out);
  return repairHistory(out);
}

/** What comes before the thread's messages: the summary, then the note, each as the user's. */
export function headMessages(input: HistoryInput): ChatMessage[] {
  const out: ChatMessage[] = [];
  if (input.summary !== undefined)
    out.push({ role: 'user', content: [{ type: 'text', text: summaryText(input.summary) }] });
  if (input.note !== undefined)
    out.push({ role: 'user', content: [{ type: 'text', text: `${NOTE_HEAD}${input.note})` }] });
  return out;
}

/** The records from `from` up to `to` as unrepaired messages, pushed onto `out`. */
export function recordMessages(
  who: { agent: string; owner: string },
  records: readonly MessageRecord[],
  from: number,
  to: number,
  out: ChatMessage[] = [],
): ChatMessage[] {
  for (let i = from; i < to; i++) {
    const m = records[i]!;
    if (m.from === who.agent) {
      for (const r of roundsOf(m)) {
        out.push({ role: 'assistant', content: r.content });
        out.push({ role: 'user', content: r.results });
      }
      out.push({ role: 'assistant', content: [{ type: 'text', text: m.body }] });
    } else if (m.from === who.owner) {
      out.push({ role: 'user', content: [{ type: 'text', text: m.body }] });
    } else {
      out.push({
        role: 'user',
        content: [{ type: 'text', text: untrusted(`agent:${m.from}`, m.body) }],
      });
    }
  }
  return out;
}

/** Whether repairHistory keeps a block: all but text that is empty or blank. */
export function keptBlock(b: ContentBlock): boolean {
  return b.type !== 'text' || b.text.trim().length > 0;
}

/**
 * Make a message list the API accepts, keeping everything it can:
 * - empty text blocks and empty messages go; the first message is the user's;
 * - consecutive messages of one role are merged (the roles must alternate);
 * - every tool_use gets its tool_result right after it (a synthetic error when it has none);
 * - a tool_result with no tool_use just before it is dropped; tool_results come first in their message.
 */
export function repairHistory(messages: ChatMessage[]): ChatMessage[] {
  const merged: ChatMessage[] = [];
  for (const m of messages) {
    const content = m.content.filter(keptBlock);
    if (content.length === 0) continue;
    const last = merged[merged.length - 1];
    if (last && last.role === m.role) last.content.push(...content);
    else merged.push({ role: m.role, content: [...content] });
  }
  if (merged[0]?.role === 'assistant')
    merged.unshift({ role: 'user', content: [{ type: 'text', text: '(conversation continues)' }] });

  const out: ChatMessage[] = [];
  for (let i = 0; i < merged.length; i++) {
    const m = merged[i]!;
    if (m.role === 'assistant') {
      out.push(m);
      const uses = toolUses(m.content);
      if (uses.length === 0) continue;
      const next = merged[i + 1];
      if (next === undefined) {
        out.push({ role: 'user', content: pairResults(uses, []) });
      } else {
        i++;
        out.push({ role: 'user', content: pairResults(uses, next.content) });
      }
    } else {
      // A user message not right after a tool_use: any tool_result in it is an orphan.
      const kept = m.content.filter((b) => b.type !== 'tool_result');
      out.push({
        role: 'user',
        content:
          kept.length > 0 ? kept : [{ type: 'text', text: '(earlier tool results omitted)' }],
      });
    }
  }
  return out;
}

function toolUses(content: ContentBlock[]): ToolUseBlock[] {
  return content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
}

/** The user message after a tool-using assistant message: one result per use, in order, then the rest. */
function pairResults(uses: ToolUseBlock[], content: ContentBlock[]): ContentBlock[] {
  const results = new Map<string, ToolResultBlock>();
  for (const b of content)
    if (b.type === 'tool_result' && !results.has(b.tool_use_id)) results.set(b.tool_use_id, b);
  const paired: ContentBlock[] = uses.map(
    (u) =>
      results.get(u.id) ?? {
        type: 'tool_result',
        tool_use_id: u.id,
        content: INTERRUPTED_RESULT,
        is_error: true,
      },
  );
  return [...paired, ...content.filter((b) => b.type !== 'tool_result')];
}

/** Every tool_use of a list paired with its result right after it: what the tests and the loop check. */
export function unpairedToolUses(messages: ChatMessage[]): string[] {
  const missing: string[] = [];
  messages.forEach((m, i) => {
    if (m.role !== 'assistant') return;
    const next = messages[i + 1];
    const got = new Set(
      (next?.content ?? []).flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : [])),
    );
    for (const u of toolUses(m.content)) if (!got.has(u.id)) missing.push(u.id);
  });
  return missing;
}

/** Characters / 4: the rough token count used when no model has reported one. */
export function estimateTokens(value: string | ChatMessage[]): number {
  const chars = typeof value === 'string' ? value.length : JSON.stringify(value).length;
  return Math.ceil(chars / 4);
}

/**
 * A turn that fails before any round stores no reply (its question stands, for the next turn to
 * answer). When the same sender then sends the same text again, that is a retry: it answers the
 * message already stored, which is still the thread's last, instead of storing it a second time.
 */
export function saidAgain(
  brain: Brain,
  threadId: string,
  from: string,
  text: string,
): { id: string } | undefined {
  const count = brain.messages.thread({ thread_id: threadId, limit: 1 }).thread.message_count;
  if (count === 0) return undefined;
  const last = brain.messages.thread({ thread_id: threadId, limit: 1, offset: count - 1 })
    .messages[0];
  return last && last.from === from && last.body === text ? last : undefined;
}
