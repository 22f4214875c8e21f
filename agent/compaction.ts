import type { Brain, MessageRecord, SessionSummary } from '../src/index.js';
import { buildHistory, estimateTokens, repairHistory, roundsOf } from './history.js';
import type { Log } from './log.js';
import { buildHistoryAfter, settledHistory, type SettledHistory } from './settled-history.js';
import type { ChatMessage, ContentBlock, ModelPool, ModelResponse } from './models/types.js';
import { markedSources } from './permissions/trust.js';
import { runToolCall, toolSchemas } from './tools/registry.js';
import { untrusted } from './untrusted.js';
import type { Tool, ToolContext } from './tools/types.js';

/**
 * Keeping a session's context in bounds. Above `thresholdTokens` the older turns are cut off at a
 * turn boundary (a message that starts a turn, so a reply and its tool rounds stay together), the
 * model first gets one silent turn to save what matters, and the older part becomes a summary
 * stored as STM (category `summary`) sourced from the last message it covers.
 */

export interface CompactionSettings {
  thresholdTokens: number;
  keepRecentTokens: number;
}

export const SAVE_BEFORE_COMPACTION =
  'The older part of this conversation is about to be summarised and dropped from your context. ' +
  'Call save_memory now for each fact, preference, decision or open task above that should be ' +
  'remembered for good and is not saved yet. Do not answer with text; this turn is not shown to the user.';

export const SUMMARY_SYSTEM =
  'You summarise a conversation between a user and their assistant so the assistant can continue it ' +
  'without the original messages. Keep every name, number, date, amount, file path and URL exactly. ' +
  'Answer only with the summary, under these headings:\n' +
  '## People and names\n## Decisions\n## Facts (with numbers and dates)\n## Files and paths\n## Open tasks';

export const TRUNCATED_NOTE =
  'older messages of this conversation were left out here because summarising them failed';

/** The rough size of one thread message in the context: its text and its tool rounds. */
function recordTokens(m: MessageRecord): number {
  return (
    estimateTokens(m.body) +
    (m.metadata.assistant ? estimateTokens(JSON.stringify(m.metadata.assistant)) : 0)
  );
}

/**
 * The context's size in tokens: the last reply's reported figure plus a chars/4 estimate of what
 * came after it, or chars/4 of everything when no reply here reported one.
 */
export function estimateContext(
  records: MessageRecord[],
  history: ChatMessage[],
  system: string,
  agent: string,
): number {
  for (let i = records.length - 1; i >= 0; i--) {
    const m = records[i]!;
    const reported = (m.metadata.assistant as { context_tokens?: unknown } | undefined)
      ?.context_tokens;
    if (m.from === agent && typeof reported === 'number') {
      return reported + records.slice(i + 1).reduce((sum, r) => sum + recordTokens(r), 0);
    }
  }
  return estimateTokens(history) + estimateTokens(system);
}

/**
 * Where to cut: the index of the first message kept. Always a message that starts a turn (not the
 * assistant's), never the first; keeps about `keepRecentTokens` (more when a turn is long), or only
 * the latest turn when everything is smaller. Undefined when there is nothing to cut.
 */
export function chooseCut(
  records: MessageRecord[],
  agent: string,
  keepRecentTokens: number,
): number | undefined {
  let kept = 0;
  let latestStart: number | undefined;
  for (let k = records.length - 1; k >= 1; k--) {
    const m = records[k]!;
    kept += recordTokens(m);
    if (m.from === agent) continue;
    latestStart ??= k;
    if (kept >= keepRecentTokens) return k;
  }
  return latestStart;
}

/** The older messages as plain text for the summariser: who said what when, and which tools ran. */
export function transcript(
  previous: string | undefined,
  records: MessageRecord[],
  agent: string,
): string {
  const lines: string[] = [];
  if (previous) lines.push(`Summary of what came before:\n${previous}\n`);
  for (const m of records) {
    if (m.from === agent) {
      for (const round of roundsOf(m)) {
        for (const b of round.content) {
          if (b.type === 'tool_use')
            lines.push(`(${agent} called ${b.name} ${clip(JSON.stringify(b.input), 500)})`);
        }
        for (const r of round.results) lines.push(`(result: ${clip(r.content, 500)})`);
      }
    }
    lines.push(`[${m.created_at.slice(0, 16).replace('T', ' ')}] ${m.from}: ${m.body}`);
  }
  return lines.join('\n');
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

function textOf(content: ContentBlock[]): string {
  return content
    .flatMap((b) => (b.type === 'text' ? [b.text] : []))
    .join('')
    .trim();
}

/**
 * The sessions a long-running process has already read: a turn reads only the thread messages new
 * since the last (a session of thousands of messages costs one short range a turn), and builds the
 * context from the part of it that can still change (agent/settled-history.ts). A new summary, a
 * thread not seen yet, or `fresh` reads and builds afresh. Threads only grow: a session's messages
 * are never edited or inserted before the newest.
 */
export interface SessionCache {
  load(
    brain: Brain,
    threadId: string,
    summary: SessionSummary | undefined,
    who: { agent: string; owner: string },
    fresh?: boolean,
  ): SessionContext;
}

export interface SessionContext {
  /** The thread's messages after the summary: the caller's copy. */
  records: MessageRecord[];
  /** buildHistory's output for them: the caller's array, its older messages frozen. */
  history: ChatMessage[];
}

interface CachedSession {
  /** What the settled history was built with: any change reads afresh. */
  key: string;
  records: MessageRecord[];
  settled: SettledHistory;
}

/**
 * How many sessions a cache keeps, the least recently used dropped first: a long-running
 * `brain agent` hears many chats, and a session not kept is read whole at its next turn.
 */
export const SESSIONS_KEPT = 32;

export function createSessionCache({ sessions = SESSIONS_KEPT } = {}): SessionCache {
  const seen = new Map<string, CachedSession>();
  return {
    load(brain, threadId, summary, who, fresh = false) {
      const key = JSON.stringify([summary?.stm.id, summary?.stm.content, who.agent, who.owner]);
      let entry = seen.get(threadId);
      if (entry && entry.key === key && !fresh) {
        const after = entry.records[entry.records.length - 1]?.id ?? summary?.covers_through;
        entry.records.push(...brain.assistant.sessionMessages({ thread_id: threadId, after }));
      } else {
        const records = brain.assistant.sessionMessages({
          thread_id: threadId,
          after: summary?.covers_through,
        });
        entry = { key, records, settled: settledHistory() };
      }
      seen.delete(threadId); // last used last
      seen.set(threadId, entry);
      if (seen.size > sessions) seen.delete(seen.keys().next().value!);
      const history = buildHistoryAfter(entry.settled, {
        ...who,
        summary: summary?.stm.content,
        messages: entry.records,
      });
      return { records: [...entry.records], history };
    },
  };
}

/**
 * Read and build a session's context now, so that its first turn costs what the later ones do: a
 * long-running process does it while idle (`brain chat`, while the user types its first line).
 */
export function primeSession(
  cache: SessionCache,
  brain: Brain,
  threadId: string,
  who: { agent: string; owner: string },
): void {
  cache.load(brain, threadId, brain.assistant.latestSummary(threadId), who);
}

export interface LoadContextOptions {
  /** Reads only new messages of sessions read before (long-running processes). */
  cache?: SessionCache;
  brain: Brain;
  pool: ModelPool;
  compactionPool: ModelPool;
  tools: readonly Tool[];
  settings: CompactionSettings;
  /** The turn's tool context: the session, its agents, the turn's user message. */
  toolContext: ToolContext;
  system: string;
  signal?: AbortSignal;
  log: Log;
  /** Every model call made here, for the usage rows. */
  onUsage(response: ModelResponse): void;
  /** Compact even below the threshold (the model said the prompt was too long). */
  force: boolean;
}

const aborted = (o: LoadContextOptions) => o.signal?.aborted === true;

/** The session's context for the model, compacted first when it has grown past the threshold. */
export async function loadContext(o: LoadContextOptions): Promise<ChatMessage[]> {
  const { agent, owner, threadId, brain } = { ...o.toolContext, brain: o.brain };
  const latest = brain.assistant.latestSummary(threadId);
  const summary = latest?.stm.content;
  const { records, history } = o.cache
    ? o.cache.load(brain, threadId, latest, { agent, owner }, o.force)
    : readContext(o.brain, threadId, latest, { agent, owner });
  const size = estimateContext(records, history, o.system, agent);
  if (!o.force && size <= o.settings.thresholdTokens) return history;

  const cut = chooseCut(records, agent, o.settings.keepRecentTokens);
  if (cut === undefined) return history;
  const older = records.slice(0, cut);
  const kept = records.slice(cut);
  o.log('info', 'compaction.start', {
    thread: threadId,
    tokens: size,
    cut: older.length,
    kept: kept.length,
  });

  const olderHistory = buildHistory({ agent, owner, summary, messages: older });
  const foreign = foreignSources(olderHistory);
  await saveBeforeCompaction(o, olderHistory, foreign);
  try {
    const response = await o.compactionPool.complete({
      system: SUMMARY_SYSTEM,
      messages: [
        { role: 'user', content: [{ type: 'text', text: transcript(summary, older, agent) }] },
      ],
      tools: [],
      signal: o.signal,
    });
    o.onUsage(response);
    const written = textOf(response.content);
    if (!written) throw new Error('the summary came back empty');
    // A summary of foreign content keeps the mark of it: the turns after it stay tainted.
    const text =
      foreign.length === 0
        ? written
        : `${written}\n\n${untrusted(`compacted:${foreign.join(', ')}`, 'Part of what is summarised above came from outside the owner.')}`;
    const stm = brain.knowledge.remember({
      agent,
      content: text,
      categories: ['summary'],
      source_message_id: older[older.length - 1]!.id,
    });
    o.log('info', 'compaction.done', { thread: threadId, summary: stm.id });
    return buildHistory({ agent, owner, summary: text, messages: kept });
  } catch (err) {
    if (aborted(o)) throw err;
    o.log('warn', 'compaction.summary_failed', { thread: threadId, error: (err as Error).message });
    return buildHistory({ agent, owner, summary, note: TRUNCATED_NOTE, messages: kept });
  }
}

/** The session's records after the summary and the context built from them, read whole. */
function readContext(
  brain: Brain,
  threadId: string,
  summary: SessionSummary | undefined,
  who: { agent: string; owner: string },
): SessionContext {
  const records = brain.assistant.sessionMessages({
    thread_id: threadId,
    after: summary?.covers_through,
  });
  return {
    records,
    history: buildHistory({ ...who, summary: summary?.stm.content, messages: records }),
  };
}

/** One silent model turn offering only save_memory, its calls run, its text never shown. */
async function saveBeforeCompaction(
  o: LoadContextOptions,
  older: ChatMessage[],
  foreign: readonly string[],
): Promise<void> {
  const save = o.tools.find((t) => t.name === 'save_memory');
  if (!save) return;
  const messages = repairHistory([
    ...older,
    { role: 'user', content: [{ type: 'text', text: SAVE_BEFORE_COMPACTION }] },
  ]);
  try {
    const response = await o.pool.complete({
      system: o.system,
      messages,
      tools: toolSchemas([save]),
      signal: o.signal,
    });
    o.onUsage(response);
    for (const b of response.content) {
      if (b.type === 'tool_use' && b.name === save.name)
        // What is saved from foreign content is marked so (agent/tools/save-memory.ts).
        await runToolCall([save], b, {
          ...o.toolContext,
          taint: () => [...(o.toolContext.taint?.() ?? []), ...foreign],
        });
    }
  } catch (err) {
    if (aborted(o)) throw err;
    o.log('warn', 'compaction.save_failed', { error: (err as Error).message });
  }
}

/** The sources of the foreign content in a context (agent/permissions/trust.ts marks). */
function foreignSources(history: ChatMessage[]): string[] {
  const sources = new Set<string>();
  for (const m of history)
    for (const b of m.content) {
      const text = b.type === 'text' ? b.text : b.type === 'tool_result' ? b.content : '';
      // An earlier summary's mark lists its own sources: kept flat, not nested.
      for (const s of markedSources(text))
        for (const one of s.replace(/^compacted:/, '').split(', ')) sources.add(one);
    }
  return [...sources];
}
