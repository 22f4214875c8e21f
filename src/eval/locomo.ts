import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { connectionOf, openBrain, type Brain } from '../brain.js';
import type { Embedder } from '../embed/embedder.js';
import { BrainError } from '../errors.js';
import type { SearchMode } from '../search/search.js';
import { MAX_SEARCH_LIMIT } from '../vocabulary.js';
import { readLocomo, type LocomoConversation } from './locomo-format.js';

/** LoCoMo categories that have answers in the conversation (5 is adversarial, left out). */
export const LOCOMO_CATEGORIES = [1, 2, 3, 4];
const CATEGORIES = LOCOMO_CATEGORIES;

export interface LocomoEvalOptions {
  /** Cut-offs for recall@k; default 5 and 10. */
  ks?: number[];
  /** Vectors for the `vector` and `hybrid` arms; without one only `fts` runs. */
  embedder?: Embedder;
  /** Progress lines (stderr in the CLI). */
  onProgress?: (line: string) => void;
  /**
   * Measure each conversation again inside a brain that already holds other text: a brain file
   * (checkpointed, no WAL left) copied afresh for each conversation.
   */
  haystack?: { path: string };
}

/** Search latency of one arm, over every question asked. */
export interface Latency {
  p50_ms: number;
  p99_ms: number;
}

export type RecallAtK = Record<string, number>;

export interface ArmReport {
  recall: RecallAtK;
  by_category: Record<string, RecallAtK>;
}

/** The same measures inside the haystack. */
export interface HaystackReport {
  n: number;
  recall: RecallAtK;
  by_category: Record<string, RecallAtK>;
  arms: Partial<Record<SearchMode, ArmReport>>;
  latency: Partial<Record<SearchMode, Latency>>;
}

export interface LocomoReport {
  /** Recall of the search users call: hybrid with an embedder, words only without. */
  recall: RecallAtK;
  by_category: Record<string, RecallAtK>;
  arms: Partial<Record<SearchMode, ArmReport>>;
  questions: number;
  conversations: number;
  embedder: string | null;
  /** Questions of categories 1–4 left out because they name no evidence turn. */
  skipped_no_evidence: number;
  latency: Partial<Record<SearchMode, Latency>>;
  haystack?: HaystackReport;
}

/** Agent names allow letters, digits and _ . @ -; speakers' names may hold more. */
function agentNameOf(speaker: string): string {
  const name = speaker
    .trim()
    .replace(/[^A-Za-z0-9_.@-]+/g, '_')
    .replace(/^[^A-Za-z0-9]+/, '');
  return (name || 'speaker').slice(0, 64);
}

/**
 * Each turn a message from its speaker to the other; one thread per session, at the session's
 * date. Returns each turn's message id by its dia_id.
 */
export function loadConversation(brain: Brain, conv: LocomoConversation): Map<string, string> {
  const ids = new Map<string, string>();
  const [a, b] = conv.speakers;
  for (const session of conv.sessions) {
    let thread: string | undefined;
    const start = Date.parse(session.date);
    session.turns.forEach((t, i) => {
      const caption = t.blip_caption
        ? `[shares a photo of ${t.blip_caption.replace(/^a photo of /i, '')}]`
        : '';
      const body = [t.text.trim(), caption].filter(Boolean).join(' ') || '(no text)';
      const from = t.speaker === b ? b : a;
      const sent = brain.messages.send({
        from: agentNameOf(from),
        to: agentNameOf(from === a ? b : a),
        ...(thread ? { thread } : { subject: `Session ${session.index}` }),
        body,
        at: new Date(start + i * 30_000).toISOString(),
      });
      thread = sent.thread_id;
      ids.set(t.dia_id, sent.id);
    });
  }
  return ids;
}

interface Tally {
  sum: Record<string, number>;
  byCat: Record<string, { n: number; sum: Record<string, number> }>;
  n: number;
  ms: number[];
}

function newTally(): Tally {
  return { sum: {}, byCat: {}, n: 0, ms: [] };
}

/** The p-th percentile (nearest rank) of the times, to 0.01 ms. */
export function percentile(ms: number[], p: number): number {
  if (ms.length === 0) return 0;
  const sorted = [...ms].sort((a, b) => a - b);
  const at = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return Math.round(sorted[at]! * 100) / 100;
}

function mean(sum: Record<string, number>, n: number, ks: number[]): RecallAtK {
  return Object.fromEntries(ks.map((k) => [String(k), n === 0 ? 0 : round((sum[k] ?? 0) / n)]));
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/**
 * Retrieval recall of LoCoMo evidence turns: each conversation alone in a fresh brain, every
 * question of categories 1–4 asked through the same search users call, per arm.
 */
export async function evalLocomo(
  doc: unknown,
  options: LocomoEvalOptions = {},
): Promise<LocomoReport> {
  const ks = [...new Set(options.ks ?? [5, 10])].sort((x, y) => x - y);
  if (ks.length === 0 || ks.some((k) => !Number.isInteger(k) || k < 1 || k > MAX_SEARCH_LIMIT)) {
    throw new BrainError(
      'INVALID_INPUT',
      `--k: must be whole numbers from 1 to ${MAX_SEARCH_LIMIT}`,
    );
  }
  const conversations = readLocomo(doc);
  const embedder = options.embedder;
  const arms: SearchMode[] = embedder ? ['fts', 'vector', 'hybrid'] : ['fts'];
  const tallies = (): Record<SearchMode, Tally> =>
    Object.fromEntries(arms.map((a) => [a, newTally()])) as Record<SearchMode, Tally>;
  const alone = tallies();
  const inHaystack = tallies();
  const maxK = ks[ks.length - 1]!;
  let skipped = 0;
  let haystackSize: number | undefined;

  /** Load the conversation into the brain, embed what waits, ask every question in every arm. */
  const measure = async (brain: Brain, conv: LocomoConversation, into: typeof alone) => {
    const ids = loadConversation(brain, conv);
    if (embedder) {
      const result = await brain.embed.embedQueued(embedder);
      if (result.failed > 0 || result.stopped_by) {
        throw new BrainError(
          'UPSTREAM_FAILED',
          `embedding ${conv.id} failed: ${result.errors.join('; ')}`,
        );
      }
    }
    const questions = conv.questions.filter((q) => CATEGORIES.includes(q.category));
    // Its questions are asked the day after its last session, in UTC as its dates are read: a
    // time in one ("in June") is read from then.
    const lastSession = Math.max(...conv.sessions.map((s) => Date.parse(s.date)));
    const timeWords = { timeZone: 'UTC', now: new Date(lastSession + 86_400_000) };
    let noEvidence = 0;
    for (const q of questions) {
      if (q.evidence.length === 0 || q.question.trim() === '') {
        noEvidence++;
        continue;
      }
      const wanted = q.evidence.map((e) => ids.get(e) ?? `missing:${e}`);
      for (const arm of arms) {
        const started = performance.now();
        const { hits } = await brain.search.searchHybrid(
          { query: q.question, types: ['message'], limit: maxK },
          { embedder, mode: arm, queryTimeoutMs: 30_000, timeWords },
        );
        const tally = into[arm];
        tally.ms.push(performance.now() - started);
        const cat = (tally.byCat[q.category] ??= { n: 0, sum: {} });
        tally.n++;
        cat.n++;
        for (const k of ks) {
          const top = new Set(hits.slice(0, k).map((h) => h.id));
          const r = wanted.filter((id) => top.has(id)).length / wanted.length;
          tally.sum[k] = (tally.sum[k] ?? 0) + r;
          cat.sum[k] = (cat.sum[k] ?? 0) + r;
        }
      }
    }
    return { turns: ids.size, questions: questions.length, noEvidence };
  };

  for (const conv of conversations) {
    const brain = await openBrain({ dbPath: ':memory:' });
    try {
      const m = await measure(brain, conv, alone);
      skipped += m.noEvidence;
      options.onProgress?.(`${conv.id}: ${m.turns} turns, ${m.questions} questions`);
    } finally {
      brain.close();
    }
    if (options.haystack) {
      const dir = mkdtempSync(join(tmpdir(), 'brain-haystack-'));
      try {
        const dbPath = join(dir, 'haystack.db');
        copyFileSync(options.haystack.path, dbPath);
        const stack = await openBrain({ dbPath });
        try {
          haystackSize ??= connectionOf(stack)
            .prepare<[], { n: number }>(`SELECT count(*) AS n FROM messages`)
            .get()!.n;
          await measure(stack, conv, inHaystack);
          options.onProgress?.(`${conv.id}: again inside ${haystackSize} messages`);
        } finally {
          stack.close();
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  }

  const report = (t: Tally): ArmReport => ({
    recall: mean(t.sum, t.n, ks),
    by_category: Object.fromEntries(
      Object.entries(t.byCat)
        .sort(([x], [y]) => Number(x) - Number(y))
        .map(([c, v]) => [c, mean(v.sum, v.n, ks)]),
    ),
  });
  const latency = (t: Record<SearchMode, Tally>) =>
    Object.fromEntries(
      arms.map((a) => [a, { p50_ms: percentile(t[a].ms, 50), p99_ms: percentile(t[a].ms, 99) }]),
    );
  const main = embedder ? 'hybrid' : 'fts';
  const armReports = Object.fromEntries(arms.map((a) => [a, report(alone[a])]));
  const stackReports = Object.fromEntries(arms.map((a) => [a, report(inHaystack[a])]));
  return {
    recall: armReports[main]!.recall,
    by_category: armReports[main]!.by_category,
    arms: armReports,
    questions: alone[arms[0]!].n,
    conversations: conversations.length,
    embedder: embedder?.model ?? null,
    skipped_no_evidence: skipped,
    latency: latency(alone),
    ...(options.haystack && {
      haystack: {
        n: haystackSize ?? 0,
        recall: stackReports[main]!.recall,
        by_category: stackReports[main]!.by_category,
        arms: stackReports,
        latency: latency(inHaystack),
      },
    }),
  };
}
