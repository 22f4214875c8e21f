import type { Database } from 'better-sqlite3';
import { systemClock, type Clock } from './clock.js';
import { flushNoted, type BrainContext, type IndexedItem } from './context.js';
import { guardStorage } from './db/guard.js';
import { StatementCache, openDatabase, type Durability, type VectorExtension } from './db/open.js';
import { createWalKeeper, type WalKeeper } from './db/wal.js';
import { touchAgent } from './messaging/poll.js';
import {
  DEFAULT_MAX_ATTACHMENT_BYTES,
  DEFAULT_MAX_ATTACHMENTS_TOTAL_BYTES,
  DEFAULT_ATTACHMENT_TEXT_TIMEOUT_MS,
} from './attachments/limits.js';
import { createRankCaches } from './search/rank-caches.js';
import type { AssistantSection } from './assistant/section.js';
import type { EmbedSection } from './embed/section.js';
import type { KnowledgeSection } from './knowledge/section.js';
import type { UpkeepSection } from './maintenance/section.js';
import type { MessagesSection } from './messaging/section.js';
import type { SearchSection } from './search/section.js';
import type { TransferSection } from './transfer/section.js';
import type { WebhooksSection } from './webhooks/section.js';

export type {
  AssistantSection,
  EmbedSection,
  KnowledgeSection,
  MessagesSection,
  SearchSection,
  TransferSection,
  UpkeepSection,
  WebhooksSection,
};

export interface OpenBrainOptions {
  /** Path of the SQLite file; created (with its folder) if missing, unless `create` is false. */
  dbPath: string;
  /**
   * Make the brain when the file is missing or empty (default true). False: such a file is
   * NOT_FOUND, naming the path, and nothing is created (no file, no folder).
   */
  create?: boolean;
  /** Called once when this open made a new brain, e.g. to tell a person where it is. */
  onCreated?: () => void;
  clock?: Clock;
  maxBodyBytes?: number;
  /** The largest file a message may carry (default 10 MiB). */
  maxAttachmentBytes?: number;
  /** The most bytes of files the brain keeps (default 1 GiB). */
  maxAttachmentsTotalBytes?: number;
  /** The time reading one send's PDF and HTML files for their text may take (default 20 s). */
  attachmentTextTimeoutMs?: number;
  readonly?: boolean;
  /** `normal` (default): a process crash loses nothing that returned; `full`: neither does a power cut. */
  durability?: Durability;
  /** Past this size the WAL is checkpointed and truncated (default 16 MiB). */
  walLimitBytes?: number;
  /** Rank with the compiled function when built (default true); false ranks with FTS5's bm25(). */
  rankFunction?: boolean;
  /** Page cache of this connection in MiB (SQLite's default is 2): larger for bulk loads. */
  cacheMiB?: number;
}

/**
 * Open the database (migrated) and the context every section shares, with the WAL keeper to run
 * after each call. Exported for the library's tests; users open a brain with `openBrain`.
 */
export function openContext(
  options: OpenBrainOptions,
  vectors?: VectorExtension,
): { ctx: BrainContext; wal: WalKeeper } {
  const db = openDatabase(options.dbPath, {
    readonly: options.readonly ?? false,
    durability: options.durability,
    rankFunction: options.rankFunction,
    create: options.create,
    onCreated: options.onCreated,
    vectors,
  });
  if (options.cacheMiB !== undefined)
    db.pragma(`cache_size = -${Math.max(1, Math.floor(options.cacheMiB * 1024))}`);
  const wal = createWalKeeper(db, options.dbPath, options.walLimitBytes);
  const ctx: BrainContext = {
    db,
    q: new StatementCache(db),
    clock: options.clock ?? systemClock,
    limits: {
      maxBodyBytes: options.maxBodyBytes ?? 1_048_576,
      maxAttachmentBytes: options.maxAttachmentBytes ?? DEFAULT_MAX_ATTACHMENT_BYTES,
      maxAttachmentsTotalBytes:
        options.maxAttachmentsTotalBytes ?? DEFAULT_MAX_ATTACHMENTS_TOTAL_BYTES,
      attachmentTextTimeoutMs:
        options.attachmentTextTimeoutMs ?? DEFAULT_ATTACHMENT_TEXT_TIMEOUT_MS,
    },
    indexers: [],
    // Filled by the sections whose reads note (knowledge, search); empty for the others.
    accesses: new Map(),
    wordCounts: new Map(),
    noted: new Set(),
    ranking: createRankCaches(),
  };
  return { ctx, wal };
}

/** The brain's doors, one per domain, each built over the same connection (`BrainContext`). */
export interface Sections {
  /** Agents, messages and threads: who said what to whom, read and acknowledged. */
  messages: MessagesSection;
  /** What was learned: short-term memories, atoms and their links, each traced to its message. */
  knowledge: KnowledgeSection;
  /** Finding things again: by words, by words and meaning, by time. */
  search: SearchSection;
  /** The vectors of meaning search: the embedding queue, its worker, the embedders. */
  embed: EmbedSection;
  /** Keeping the file healthy: idle upkeep, the doctor, backups, storage figures. */
  upkeep: UpkeepSection;
  /** The assistant's bookkeeping: sessions, leases, usage, approvals, pairing, cron, tasks. */
  assistant: AssistantSection;
  /** The brain as a document: export, import, and migration from other tools. */
  transfer: TransferSection;
  /** Webhooks out: the deliveries recorded, replay, the worker a server runs. */
  webhooks: WebhooksSection;
}

export type SectionName = keyof Sections;

type SectionBuilder<K extends SectionName> = (ctx: BrainContext, dbPath: string) => Sections[K];

/**
 * Each section's code, loaded when a brain asks for the section: a one-shot command that polls
 * loads the messaging modules and nothing of search, embedding, transfer or the assistant.
 */
const LOADERS: { [K in SectionName]: () => Promise<SectionBuilder<K>> } = {
  messages: async () => (await import('./messaging/section.js')).messagesSection,
  knowledge: async () => (await import('./knowledge/section.js')).knowledgeSection,
  search: async () => (await import('./search/section.js')).searchSection,
  embed: async () => (await import('./embed/section.js')).embedSection,
  upkeep: async () => (await import('./maintenance/section.js')).upkeepSection,
  assistant: async () => (await import('./assistant/section.js')).assistantSection,
  transfer: async () => (await import('./transfer/section.js')).transferSection,
  webhooks: async () => (await import('./webhooks/section.js')).webhooksSection,
};

export const SECTION_NAMES = Object.keys(LOADERS) as readonly SectionName[];

/** The sections whose work reads or writes the vector index, and so needs sqlite-vec loaded. */
const VECTOR_SECTIONS: readonly SectionName[] = ['search', 'embed', 'upkeep', 'transfer'];

/**
 * The brain: one SQLite file that is both the conversation and the memory of a group of agents,
 * with the sections it was opened with (all of them unless `openBrain` was given a list).
 */
export type Brain<S extends SectionName = SectionName> = BrainCore & Pick<Sections, S>;

export interface BrainCore {
  readonly path: string;
  /** Run inside each write transaction for every new message, STM entry and atom. */
  onIndexed(indexer: (item: IndexedItem) => void): void;
  /**
   * Register the agent if new and mark it seen now, whatever sections the brain was opened with
   * (every client marks its acting agent). With `wait: false` only if the write lock is free at
   * once (bookkeeping beside a read): false when it was not written.
   */
  touchAgent(name: string, options?: { wait?: boolean }): boolean;
  /**
   * Run `fn` — any number of this brain's writes — as one transaction: they commit together or
   * not at all. For bulk loads (a benchmark's build); each write inside still takes its usual path.
   */
  batch<T>(fn: () => T): T;
  close(): void;
}

/** Each open brain's connection, kept off the Brain object: users get the library, not raw SQL. */
const connections = new WeakMap<BrainCore, Database>();

/**
 * The SQLite connection behind a brain opened by `openBrain`. For the library's own modules
 * (the watcher, the embedding worker) and its tests; not exported from the package.
 */
export function connectionOf(brain: BrainCore): Database {
  const db = connections.get(brain);
  if (!db) throw new Error('connectionOf: not a brain returned by openBrain');
  return db;
}

/**
 * Open (and migrate, or make) the brain at `options.dbPath` with the sections named, or all of
 * them. Every call of every section turns a raw SQLite failure into a BrainError naming the file.
 */
export async function openBrain<S extends SectionName = SectionName>(
  options: OpenBrainOptions,
  sections?: readonly S[],
): Promise<Brain<S>> {
  const names = (sections ?? SECTION_NAMES) as readonly S[];
  // The code first: a file is opened only once everything that works on it is there.
  const [vectors, ...builders] = await Promise.all([
    names.some((n) => VECTOR_SECTIONS.includes(n)) ? import('sqlite-vec') : undefined,
    ...names.map((name) => LOADERS[name]()),
  ]);
  const { ctx, wal } = openContext(
    {
      ...options,
      // Only search ranks (and the doctor checks that it can): others need no ranking extension.
      rankFunction: names.some((n) => n === 'search' || n === 'upkeep')
        ? options.rankFunction
        : false,
    },
    vectors,
  );
  const db = ctx.db;
  const guard = <T extends object>(section: T): T =>
    guardStorage(section, options.dbPath, wal.check);
  const core: BrainCore = {
    path: options.dbPath,
    onIndexed: (indexer) => void ctx.indexers.push(indexer),
    touchAgent: (name, touch) => touchAgent(ctx, name, touch),
    batch: <T>(fn: () => T): T => db.transaction(fn).immediate(),
    close: () => {
      if (!db.open) return;
      try {
        flushNoted(ctx); // one last attempt, never waiting: a closing read must not queue
      } finally {
        db.close();
      }
    },
  };
  const built: Record<string, unknown> = {};
  names.forEach((name, i) => {
    const build = builders[i] as SectionBuilder<S>;
    built[name] = guard(build(ctx, options.dbPath));
  });
  const brain = guard({ ...core, ...built }) as Brain<S>;
  connections.set(brain, db);
  return brain;
}
