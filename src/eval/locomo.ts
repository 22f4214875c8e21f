import { openBrain, type Brain } from '../brain.js';
import type { Embedder } from '../embed/embedder.js';
import { BrainError } from '../errors.js';
import type { SearchMode } from '../search/search.js';
import { readLocomo, type LocomoConversation } from './locomo-format.js';

/** LoCoMo categories that have answers in the conversation (5 is adversarial, left out). */
const CATEGORIES = [1, 2, 3, 4];

export interface LocomoEvalOptions {
  /** Cut-offs for recall@k; default 5 and 10. */
  ks?: number[];
  /** Vectors for the `vector` and `hybrid` arms; without one only `fts` runs. */
  embedder?: Embedder;
  /** Progress lines (stderr in the CLI). */
  onProgress?: (line: string) => void;
}

export type RecallAtK = Record<string, number>;

export interface ArmReport {
  recall: RecallAtK;
  by_category: Record<string, RecallAtK>;
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
}

/** Agent names allow letters, digits and _ . @ -; speakers' names may hold more. */
function agentNameOf(speaker: string): string {
  const name = speaker
    .trim()
    .replace(/[^A-Za-z0-9_.@-]+/g, '_')
    .replace(/^[^A-Za-z0-9]+/, '');
  return (name || 'speaker').slice(0, 64);
}

/** Each turn a message from its speaker to the other; one thread per session, at the session's date. */
function loadConversation(brain: Brain, conv: LocomoConversation): Map<string, string> {
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
      const sent = brain.send({
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
}

function newTally(): Tally {
  return { sum: {}, byCat: {}, n: 0 };
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
  if (ks.length === 0 || ks.some((k) => !Number.isInteger(k) || k < 1 || k > 200)) {
    throw new BrainError('INVALID_INPUT', '--k: must be whole numbers from 1 to 200');
  }
  const conversations = readLocomo(doc);
  const embedder = options.embedder;
  const arms: SearchMode[] = embedder ? ['fts', 'vector', 'hybrid'] : ['fts'];
  const tallies = Object.fromEntries(arms.map((a) => [a, newTally()])) as Record<SearchMode, Tally>;
  const maxK = ks[ks.length - 1]!;
  let skipped = 0;

  for (const conv of conversations) {
    const brain = openBrain({ dbPath: ':memory:' });
    try {
      const ids = loadConversation(brain, conv);
      if (embedder) {
        const result = await brain.embedQueued(embedder);
        if (result.failed > 0 || result.stopped_by) {
          throw new BrainError(
            'UPSTREAM_FAILED',
            `embedding ${conv.id} failed: ${result.errors.join('; ')}`,
          );
        }
      }
      const questions = conv.questions.filter((q) => CATEGORIES.includes(q.category));
      options.onProgress?.(`${conv.id}: ${ids.size} turns, ${questions.length} questions`);
      for (const q of questions) {
        if (q.evidence.length === 0 || q.question.trim() === '') {
          skipped++;
          continue;
        }
        const wanted = q.evidence.map((e) => ids.get(e) ?? `missing:${e}`);
        for (const arm of arms) {
          const { hits } = await brain.searchHybrid(
            { query: q.question, types: ['message'], limit: maxK },
            { embedder, mode: arm, queryTimeoutMs: 30_000 },
          );
          const tally = tallies[arm];
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
    } finally {
      brain.close();
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
  const armReports = Object.fromEntries(arms.map((a) => [a, report(tallies[a])]));
  const main = armReports[embedder ? 'hybrid' : 'fts']!;
  return {
    recall: main.recall,
    by_category: main.by_category,
    arms: armReports,
    questions: tallies[arms[0]!].n,
    conversations: conversations.length,
    embedder: embedder?.model ?? null,
    skipped_no_evidence: skipped,
  };
}
