import {
  MAX_QUERY_CHARS,
  SUMMARY_CATEGORY,
  type AtomRecord,
  type Brain,
  type Embedder,
  type MessageRecord,
  type SearchHit,
  type StmRecord,
} from '../src/index.js';
import { FOREIGN_CATEGORY } from './tools/save-memory.js';

/** One memory as the prompt shows it: what it is, when, its id, and its text on one line. */
export interface RelevantMemory {
  type: SearchHit['type'];
  id: string;
  /** When it was said or learned (ISO 8601). */
  time: string;
  thread_id: string | null;
  /** Who said or learned it. */
  agent: string;
  /** Saved in a turn that had taken in content from outside the owner. */
  foreign?: boolean;
  text: string;
}

export interface RelevantMemoriesOptions {
  /** The budget, estimated at four characters a token. */
  maxTokens: number;
  /** At most this many memories. */
  limit: number;
  /**
   * The current session's thread: its messages (and its compaction summaries) are already in the
   * context, so they are left out.
   */
  excludeThread?: string;
  /** Search by meaning as well when given (and the brain has vectors). */
  embedder?: Embedder;
  /** The longest text one memory may show, in characters (default 600). */
  maxChars?: number;
  /** The owner's zone, in which a time in the message ("yesterday") limits the memories. */
  timeZone?: string | undefined;
}

/** Characters per token, the estimate used for every budget here. */
export const CHARS_PER_TOKEN = 4;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/**
 * The memories most relevant to `query`: one brain search over STM, atoms and past messages, best
 * first, each shown whole (cut to `maxChars`) on one line, until the token budget is spent.
 * The search leaves out the messages of `excludeThread` itself, so a long session's own messages
 * cannot crowd out everything else; its compaction summaries are dropped after the search, so the
 * search is asked for more than `limit` to leave enough once they are gone.
 */
export async function relevantMemories(
  brain: Brain,
  query: string,
  options: RelevantMemoriesOptions,
): Promise<RelevantMemory[]> {
  const q = query.slice(0, MAX_QUERY_CHARS);
  if (q.trim() === '' || options.maxTokens <= 0) return [];
  const input = {
    query: q,
    limit: Math.min(200, options.limit * 2 + 4),
    ...(options.excludeThread !== undefined && { exclude_thread: options.excludeThread }),
  };
  // The prompt shows each memory's whole text: the hits bring their rows, not snippets.
  const hitOptions = { embedder: options.embedder, snippets: false, records: true };
  let result = await brain.search.searchHybrid(input, {
    ...hitOptions,
    timeWords: { timeZone: options.timeZone },
  });
  // A time in a message may name what is still to come ("remind me tomorrow"): with nothing
  // then, the memories come from any time.
  if (result.time && result.hits.length === 0)
    result = await brain.search.searchHybrid(input, { ...hitOptions, timeWords: false });
  const maxChars = options.maxChars ?? 600;
  const out: RelevantMemory[] = [];
  let tokens = 0;
  for (const hit of result.hits) {
    if (out.length >= options.limit) break;
    const text = memoryText(hit, options.excludeThread);
    if (text === undefined) continue;
    const memory: RelevantMemory = {
      type: hit.type,
      id: hit.id,
      time: hit.time,
      thread_id: hit.thread_id,
      agent: hit.agent,
      text: oneLine(text, maxChars),
      ...(hit.type === 'stm' &&
      (hit.record as StmRecord | undefined)?.categories.includes(FOREIGN_CATEGORY)
        ? { foreign: true }
        : {}),
    };
    const cost = estimateTokens(formatMemory(memory)) + 1;
    if (tokens + cost > options.maxTokens) continue;
    tokens += cost;
    out.push(memory);
  }
  return out;
}

/** The full text of a hit, or undefined when it belongs to the excluded thread's context. */
function memoryText(hit: SearchHit, excludeThread?: string): string | undefined {
  const inCurrent = excludeThread !== undefined && hit.thread_id === excludeThread;
  if (hit.type === 'message') {
    const m = hit.record as MessageRecord | undefined;
    if (inCurrent || !m) return undefined;
    return `${m.from} → ${m.to ?? 'everyone'}: ${m.body}`;
  }
  if (hit.type === 'stm') {
    const s = hit.record as StmRecord | undefined;
    if (!s || (inCurrent && s.categories.includes(SUMMARY_CATEGORY))) return undefined;
    return s.content;
  }
  const a = hit.record as AtomRecord | undefined;
  return (
    a && `${a.subject}: ${a.action} → ${a.outcome}${a.consequences ? ` (${a.consequences})` : ''}`
  );
}

/** Whitespace (newlines included) as single spaces, cut to `max` characters. */
function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** `- 2026-03-01 10:00Z stm_0123456789ab: text` (UTC, to the minute). */
export function formatMemory(m: RelevantMemory): string {
  const when = `${m.time.slice(0, 10)} ${m.time.slice(11, 16)}Z`;
  return `- ${when} ${m.id}: ${m.text}`;
}
