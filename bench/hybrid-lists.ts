// The lists bench/hybrid-collect.ts gathers and bench/hybrid-cv.ts fuses, and the grids they share.
import type { CONTEXT_WEIGHTS } from '../src/search/fts.js';

/** A ranked list: [candidate index, retriever's score], best first. */
export type List = Array<[number, number]>;

export interface CollectedQuestion {
  category: number;
  /** Indexes of the evidence turns' messages. */
  wanted: number[];
  vector?: List;
  /** By `previous/next/perWord|depth` (context weights and depth) or `bm25:NAME|depth`. */
  fts: Record<string, List>;
  /** Candidates whose score the named-agent boost multiplies, with the factor. */
  boost: Record<number, number>;
  /** The ids search itself put in its hybrid top 10 with the installed constants (a check). */
  hybrid?: number[];
}

export interface Collected {
  embedder: string | null;
  search_weight: number | null;
  conversations: Array<{ id: string; questions: CollectedQuestion[] }>;
}

export const CONTEXT_GRID = (() => {
  const grid: Array<typeof CONTEXT_WEIGHTS> = [];
  for (const previous of [0.5, 0.7, 0.9])
    for (const next of [0.2, 0.4, 0.6])
      for (const perWord of [2, 3, 4]) grid.push({ previous, next, perWord });
  return grid;
})();
export const FTS_DEPTHS = [20, 50, 100];
export const contextKey = (w: typeof CONTEXT_WEIGHTS) => `${w.previous}/${w.next}/${w.perWord}`;
