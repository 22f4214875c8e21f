import type { SearchType } from '../validation.js';

/** How many rows of an index hold a word (word-counts.ts): n rows with an id ≤ upto. */
export interface KeptWordCount {
  n: number;
  upto: number;
  epoch: number;
  /**
   * The index's rows when the count was last brought up to date (in memory only): while they and
   * the epoch stay the same, no row was added, and the rows above upto need not be read.
   */
  rows?: number;
}

/** Rows of one (weighted hits f, length d) class of a word: they score alike (impacts.ts). */
export interface ImpactClass {
  f: number;
  d: number;
  count: number;
  /** The class's lowest rowids, ascending: all of them, the first IMPACTS_KEEP, or none. */
  kept: number[];
}

/** A row holding a word, added above what its classes were read from. */
export interface AddedRow {
  rowid: number;
  f: number;
  d: number;
}

/** A word's score classes, read from its rows up to `upto` in `epoch` (impacts.ts). */
export interface WordImpacts {
  epoch: number;
  upto: number;
  total: number;
  classes: ImpactClass[];
  /** The rows above upto when the index last had `rows` rows: while it still has, they are all. */
  since?: { rows: number; added: AddedRow[] };
}

/** A thread's message rows, ascending, and as native doubles for brain_topk. */
export interface ThreadRows {
  ids: number[];
  sorted: Float64Array;
}

type ByIndex<T> = Record<SearchType, Map<string, T>>;

/**
 * What one connection keeps in memory between searches to rank them (the posting lists are kept
 * by the compiled extension, with the connection itself). Every entry is checked before use
 * against what it depends on (an index's epoch, its rows), so a stale one is read again.
 */
export interface RankCaches {
  /** Words' row counts, per index, the least recently used dropped first (word-counts.ts). */
  counts: ByIndex<KeptWordCount>;
  /** Common words' score classes, per index, the least recently used dropped first (impacts.ts). */
  impacts: ByIndex<WordImpacts>;
  /** Per index, the epoch whose census is known to be taken (word-counts.ts). */
  census: Map<SearchType, number>;
  /** Whether the connection's schema has what a statement looks for, asked once. */
  schema: Map<string, boolean>;
  /** The threads left out lately, the least recently used dropped first (rank.ts). */
  threads: Map<number, ThreadRows>;
  /** The connection searches again and again (warm.ts): its posting lists are worth reading whole. */
  warm: boolean;
}

export function createRankCaches(): RankCaches {
  const byIndex = <T>(): ByIndex<T> => ({ message: new Map(), stm: new Map(), atom: new Map() });
  return {
    counts: byIndex(),
    impacts: byIndex(),
    census: new Map(),
    schema: new Map(),
    threads: new Map(),
    warm: false,
  };
}
