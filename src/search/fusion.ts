import type { SearchType } from '../validation.js';
import type { Candidate, ScoreParts } from './fts.js';

/**
 * The lists a search fuses: words, meaning, and the words' lists restricted to what the query
 * prefers (the period it names, the people it names).
 */
export type Retriever = 'fts' | 'vector' | 'time' | 'people' | 'time_vector';

/** How one retriever saw a hit: its 1-based rank, its own score, and its share of the fused score. */
export interface RetrieverEvidence {
  rank: number;
  score: number;
  /** A message's score by words in its parts: BM25, context, word coverage. */
  parts?: ScoreParts;
  /** What this retriever added to the hit's final score (hybrid ranking only). */
  part?: number;
}

export interface Fused {
  type: SearchType;
  rowid: number;
  score: number;
  found_by: Partial<Record<Retriever, RetrieverEvidence>>;
  /** The factor the score was multiplied by (e.g. said by an agent the query names); absent when 1. */
  boost?: number;
}

/** Reciprocal rank fusion: each retriever adds weight / (K + rank). Constants chosen on the dev set. */
export const RRF_K = 10;
export const RRF_WEIGHTS: Record<Retriever, number> = {
  fts: 1,
  vector: 1,
  time: 1,
  people: 1,
  time_vector: 1,
};
/** What an agent said counts this much more when the query names that agent. */
export const NAMED_AGENT_BOOST = 2;

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

/** Merge ranked lists into one, best first; ties keep the order of the first list. */
export function fuseRankings(
  lists: Partial<Record<Retriever, Candidate[]>>,
  limit: number,
  options: {
    k?: number;
    weights?: Partial<Record<Retriever, number>>;
    /** A factor for each hit's fused score (1: none). */
    boost?: (hit: Fused) => number;
  } = {},
): Fused[] {
  const k = options.k ?? RRF_K;
  const byKey = new Map<string, Fused>();
  for (const [name, list] of Object.entries(lists) as Array<[Retriever, Candidate[]]>) {
    const weight = options.weights?.[name] ?? RRF_WEIGHTS[name];
    for (const c of list) {
      const key = `${c.type}:${c.rowid}`;
      let hit = byKey.get(key);
      if (!hit) {
        hit = { type: c.type, rowid: c.rowid, score: 0, found_by: {} };
        byKey.set(key, hit);
      }
      const part = weight / (k + c.rank);
      hit.score += part;
      const evidence: RetrieverEvidence = {
        rank: c.rank,
        score: round(c.score),
        part: round(part),
      };
      if (c.parts) {
        const { bm25, context, words } = c.parts;
        evidence.parts = { bm25: round(bm25), context: round(context), words: round(words) };
      }
      hit.found_by[name] = evidence;
    }
  }
  const hits = [...byKey.values()];
  if (options.boost) {
    for (const hit of hits) {
      const factor = options.boost(hit);
      if (factor !== 1) {
        hit.score *= factor;
        hit.boost = factor;
      }
    }
  }
  return hits
    .sort((a, b) => b.score - a.score)
    .slice(0, limit)
    .map((h) => ({ ...h, score: round(h.score) }));
}
