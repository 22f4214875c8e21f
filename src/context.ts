import type { Database } from 'better-sqlite3';
import type { Clock } from './clock.js';
import type { StatementCache } from './db/open.js';
import type { AccessNotes } from './knowledge/access-counts.js';
import type { WordCountNotes } from './search/word-counts.js';

/** What a new searchable item is, told to indexers inside the write transaction that made it. */
export interface IndexedItem {
  type: 'message' | 'stm' | 'atom';
  rowid: number;
}

/** Everything the brain's modules share: one database, its statements, a clock, the limits. */
export interface BrainContext {
  db: Database;
  q: StatementCache;
  clock: Clock;
  limits: { maxBodyBytes: number };
  /** Called inside the write transaction for each new searchable row (e.g. to queue embedding). */
  indexers: Array<(item: IndexedItem) => void>;
  /** Accesses of memories noted by reads, written later without waiting (access-counts.ts). */
  accesses: AccessNotes;
  /** Words' row counts worth keeping, noted by searches, written later without waiting. */
  wordCounts: WordCountNotes;
}

export function notifyIndexers(ctx: BrainContext, item: IndexedItem): void {
  for (const indexer of ctx.indexers) indexer(item);
}
