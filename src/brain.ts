import type { Database } from 'better-sqlite3';
import type { IndexedItem } from './context.js';
import { guardStorage } from './db/guard.js';
import { flushNoted } from './noted.js';
import { openContext, type OpenBrainOptions } from './open-context.js';
import { assistantSection, type AssistantSection } from './assistant/section.js';
import { embedSection, type EmbedSection } from './embed/section.js';
import { knowledgeSection, type KnowledgeSection } from './knowledge/section.js';
import { upkeepSection, type UpkeepSection } from './maintenance/section.js';
import { messagesSection, type MessagesSection } from './messaging/section.js';
import { searchSection, type SearchSection } from './search/section.js';
import { transferSection, type TransferSection } from './transfer/section.js';

export type {
  AssistantSection,
  EmbedSection,
  KnowledgeSection,
  MessagesSection,
  SearchSection,
  TransferSection,
  UpkeepSection,
};

export type { OpenBrainOptions };

/**
 * The brain: one SQLite file that is both the conversation and the memory of a group of agents.
 * Its doors are sections, one per domain, each built over the same connection (`BrainContext`):
 * `messages`, `knowledge`, `search`, `embed`, `upkeep`, `assistant`, `transfer`.
 */
export interface Brain {
  readonly path: string;
  /** Run inside each write transaction for every new message, STM entry and atom. */
  onIndexed(indexer: (item: IndexedItem) => void): void;
  readonly messages: MessagesSection;
  readonly knowledge: KnowledgeSection;
  readonly search: SearchSection;
  readonly embed: EmbedSection;
  readonly upkeep: UpkeepSection;
  readonly assistant: AssistantSection;
  readonly transfer: TransferSection;
  /**
   * Run `fn` — any number of this brain's writes — as one transaction: they commit together or
   * not at all. For bulk loads (a benchmark's build); each write inside still takes its usual path.
   */
  batch<T>(fn: () => T): T;
  close(): void;
}

/** Each open brain's connection, kept off the Brain object: users get the library, not raw SQL. */
const connections = new WeakMap<Brain, Database>();

/**
 * The SQLite connection behind a brain opened by `openBrain`. For the library's own modules
 * (the watcher, the embedding worker) and its tests; not exported from the package.
 */
export function connectionOf(brain: Brain): Database {
  const db = connections.get(brain);
  if (!db) throw new Error('connectionOf: not a brain returned by openBrain');
  return db;
}

export function openBrain(options: OpenBrainOptions): Brain {
  const { ctx, wal } = openContext(options);
  const db = ctx.db;
  // Every call of every section turns a raw SQLite failure into a BrainError naming the file.
  const guard = <T extends object>(section: T): T =>
    guardStorage(section, options.dbPath, wal.check);
  const brain: Brain = guard({
    path: options.dbPath,
    onIndexed: (indexer: (item: IndexedItem) => void) => void ctx.indexers.push(indexer),
    messages: guard(messagesSection(ctx, options.dbPath)),
    knowledge: guard(knowledgeSection(ctx, options.dbPath)),
    search: guard(searchSection(ctx, options.dbPath)),
    embed: guard(embedSection(ctx, options.dbPath)),
    upkeep: guard(upkeepSection(ctx, options.dbPath)),
    assistant: guard(assistantSection(ctx, options.dbPath)),
    transfer: guard(transferSection(ctx, options.dbPath)),
    batch: <T>(fn: () => T): T => db.transaction(fn).immediate(),
    close: () => {
      if (!db.open) return;
      try {
        flushNoted(ctx); // one last attempt, never waiting: a closing read must not queue
      } finally {
        db.close();
      }
    },
  });
  connections.set(brain, db);
  return brain;
}
