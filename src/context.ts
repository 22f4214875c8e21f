import type { Database } from 'better-sqlite3';
import type { Clock } from './clock.js';
import type { StatementCache } from './db/open.js';
import type { KeptWordCount, RankCaches } from './search/rank-caches.js';
import type { SearchType } from './validation.js';

/** What a new searchable item is, told to indexers inside the write transaction that made it. */
export interface IndexedItem {
  type: 'message' | 'stm' | 'atom';
  rowid: number;
}

/** Row id → accesses noted since the last flush, and when the latest was (ms). */
export type AccessNotes = Map<number, { count: number; lastMs: number }>;

/**
 * Counts to write: `type\0term` → the count and the epoch it holds in; `impacts\0type\0term` → a
 * word's score classes (impacts.ts), with the count they hold (n rows up to upto).
 */
export type WordCountNotes = Map<
  string,
  KeptWordCount & { type: SearchType; term: string; impacts?: Buffer }
>;

/** Everything the brain's modules share: one database, its statements, a clock, the limits. */
export interface BrainContext {
  db: Database;
  q: StatementCache;
  clock: Clock;
  limits: {
    maxBodyBytes: number;
    /** The largest file a message may carry (bytes). */
    maxAttachmentBytes: number;
    /** The most bytes of files the brain keeps, each stored once (bytes). */
    maxAttachmentsTotalBytes: number;
    /** The time reading one send's PDF and HTML files for their text may take (ms). */
    attachmentTextTimeoutMs: number;
  };
  /** Called inside the write transaction for each new searchable row (e.g. to queue embedding). */
  indexers: Array<(item: IndexedItem) => void>;
  /** Accesses of memories noted by reads, written later without waiting (access-counts.ts). */
  accesses: AccessNotes;
  /** Words' row counts worth keeping, noted by searches, written later without waiting. */
  wordCounts: WordCountNotes;
  /**
   * Writers of what reads noted for later, each added by the section whose reads note (a brain
   * that cannot search has none for word counts): true when nothing remains noted.
   */
  noted: Set<(ctx: BrainContext) => boolean>;
  /** What the connection keeps in memory between searches to rank them. */
  ranking: RankCaches;
}

/**
 * Write what reads noted for later (memories' access counts, words' row counts), each in one
 * short transaction that never waits for the write lock. True when nothing remains noted; false
 * when another writer held the lock (what was not written stays noted for the next call).
 */
export function flushNoted(ctx: BrainContext): boolean {
  let all = true;
  for (const flush of ctx.noted) all = flush(ctx) && all;
  return all;
}

export function notifyIndexers(ctx: BrainContext, item: IndexedItem): void {
  for (const indexer of ctx.indexers) indexer(item);
}
