// `brain eval extract`: how much of a conversation the brain comes to know on its own. Each
// LoCoMo conversation is loaded into a fresh brain as messages, read by the extractor through the
// same pass `brain extract` runs (merging, superseding), and what it learned is scored against the
// annotated observations; then the conversation's questions are asked with and without that
// knowledge among the search's types, to see whether it helps retrieval.
import { openBrain, type Brain } from '../brain.js';
import { BrainError } from '../errors.js';
import type { Summarizer } from '../knowledge/extract/summary-types.js';
import type { Extractor } from '../knowledge/extract/types.js';
import {
  combineMetrics,
  CONTENT_F1_THRESHOLD,
  readLocomoObservations,
  scoreExtraction,
  summaryF1,
  type ExtractMetrics,
  type ScoredEntry,
} from './extract-metrics.js';
import { loadConversation } from './locomo.js';
import { readLocomo } from './locomo-format.js';

/** LoCoMo's question categories with evidence turns (5, adversarial, has none to find). */
const CATEGORIES = [1, 2, 3, 4];

/** The cut-off of the retrieval pair. */
const RECALL_K = 5;

export interface ExtractEvalOptions {
  threshold?: number;
  /** Summarizes each session's thread, scored against the session's annotated summary. */
  summarizer?: Summarizer;
  onProgress?: (line: string) => void;
}

export interface ExtractEvalReport extends ExtractMetrics {
  extractor: string;
  conversations: number;
  threshold: number;
  /** Mean token F1 of each session's summary against its annotated one; null without a summarizer. */
  summary_f1: number | null;
  summaries: number;
  /** recall@5 of the evidence turns, messages alone (knowledge absent). */
  recall_without_knowledge: number;
  /**
   * recall@5 with what was learned among the types searched: a hit on an entry finds the turns
   * it cites.
   */
  recall_with_knowledge: number;
  questions: number;
  per_conversation: Array<{ id: string } & ExtractMetrics>;
}

/** Every current entry the extractor learned, with the dia_ids of its sources. */
function learned(brain: Brain, diaOf: Map<string, string>): Map<string, ScoredEntry> {
  const page = brain.knowledge.insights({ limit: 1000 });
  if (page.length === 1000)
    throw new BrainError(
      'INVALID_INPUT',
      'eval extract: a conversation taught 1,000 entries or more; split the file',
    );
  return new Map(
    page.map((i) => [
      i.id,
      {
        content: i.content,
        sources: i.sources.map((s) => diaOf.get(s.message_id)).filter((d): d is string => !!d),
      },
    ]),
  );
}

async function recallAt(
  brain: Brain,
  question: string,
  wanted: string[],
  knowledge: Map<string, ScoredEntry> | undefined,
  idOf: Map<string, string>,
): Promise<number> {
  const { hits } = await brain.search.searchHybrid(
    { query: question, types: knowledge ? ['message', 'stm'] : ['message'], limit: RECALL_K },
    { mode: 'fts', queryTimeoutMs: 30_000 },
  );
  const found = new Set<string>();
  for (const h of hits.slice(0, RECALL_K)) {
    if (h.type === 'message') found.add(h.id);
    else for (const dia of knowledge?.get(h.id)?.sources ?? []) found.add(idOf.get(dia) ?? dia);
  }
  return wanted.filter((id) => found.has(id)).length / wanted.length;
}

export async function evalExtract(
  doc: unknown,
  extractor: Extractor,
  options: ExtractEvalOptions = {},
): Promise<ExtractEvalReport> {
  const threshold = options.threshold ?? CONTENT_F1_THRESHOLD;
  const annotated = readLocomoObservations(doc);
  const conversations = readLocomo(doc);
  const parts: ExtractEvalReport['per_conversation'] = [];
  let without = 0;
  let withKnowledge = 0;
  let questions = 0;
  let summaryF1Sum = 0;
  let summaries = 0;
  for (const [n, conv] of conversations.entries()) {
    const brain = await openBrain({ dbPath: ':memory:' });
    try {
      const idOf = loadConversation(brain, conv);
      const diaOf = new Map([...idOf].map(([dia, id]) => [id, dia]));
      const pass = await brain.knowledge.extract(extractor);
      if (pass.failed > 0)
        throw new BrainError(
          'UPSTREAM_FAILED',
          `extracting ${conv.id} failed: ${pass.errors.join('; ')}`,
        );
      const knowledge = learned(brain, diaOf);
      const metrics = scoreExtraction(
        [...knowledge.values()],
        annotated[n]!.observations,
        threshold,
      );
      parts.push({ id: conv.id, ...metrics });
      for (const q of conv.questions) {
        if (!CATEGORIES.includes(q.category) || q.evidence.length === 0 || !q.question.trim())
          continue;
        const wanted = q.evidence.map((e) => idOf.get(e) ?? `missing:${e}`);
        without += await recallAt(brain, q.question, wanted, undefined, idOf);
        withKnowledge += await recallAt(brain, q.question, wanted, knowledge, idOf);
        questions++;
      }
      // Summaries last: the questions above are asked of what extraction learned alone.
      if (options.summarizer) {
        const references = new Map(annotated[n]!.summaries.map((s) => [s.session, s.text]));
        for (const session of conv.sessions) {
          const reference = references.get(session.index);
          const first = session.turns[0] && idOf.get(session.turns[0].dia_id);
          if (!reference || !first) continue;
          const thread = brain.messages.getMessage(first)!.thread_id;
          const summary = await brain.knowledge.summarize(thread, options.summarizer);
          summaryF1Sum += summaryF1(summary?.content ?? '', reference);
          summaries++;
        }
      }
      options.onProgress?.(
        `${conv.id}: ${idOf.size} turns, ${knowledge.size} entries (${pass.added} new, ${pass.merged} merged, ${pass.superseded} superseding)`,
      );
    } finally {
      brain.close();
    }
  }
  const round = (x: number) => Math.round(x * 1000) / 1000;
  const total = combineMetrics(parts);
  return {
    extractor: `${extractor.name}@${extractor.version}`,
    conversations: conversations.length,
    threshold,
    ...total,
    provenance_recall: round(total.provenance_recall),
    content_recall: round(total.content_recall),
    entries_per_observation: round(total.entries_per_observation),
    evidence_share: round(total.evidence_share),
    summary_f1: options.summarizer ? round(summaries ? summaryF1Sum / summaries : 0) : null,
    summaries,
    recall_without_knowledge: round(questions ? without / questions : 0),
    recall_with_knowledge: round(questions ? withKnowledge / questions : 0),
    questions,
    per_conversation: parts,
  };
}
