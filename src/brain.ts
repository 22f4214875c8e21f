import type { Database } from 'better-sqlite3';
import type { IndexedItem } from './context.js';
import { guardStorage } from './db/guard.js';
import { writeWithoutWaiting } from './db/no-wait.js';
import { flushAccesses } from './knowledge/access-counts.js';
import { flushNoted } from './noted.js';
import {
  createIdleMaintainer,
  type MaintainOptions,
  type MaintainResult,
} from './maintenance/idle.js';
import { warmSearch } from './search/warm.js';
import { openContext, type OpenBrainOptions } from './open-context.js';
import {
  atomChain,
  createAtom,
  getAtom,
  linkAtoms,
  type AtomInput,
  type ChainInput,
  type LinkInput,
} from './knowledge/atoms.js';
import { findProvenance, type ProvenanceInput } from './knowledge/provenance.js';
import {
  getStm,
  listStm,
  remember,
  type ListStmInput,
  type RememberInput,
} from './knowledge/stm.js';
import { migrateCortex } from './legacy/cortex.js';
import { migrateSynapse } from './legacy/synapse.js';
import { getAgent, listAgents, updateAgent, type UpdateAgentInput } from './messaging/agents.js';
import {
  ackMessage,
  markMessageRead,
  peekInbox,
  readInbox,
  type AckInput,
  type MarkReadInput,
  type InboxInput,
} from './messaging/inbox.js';
import { getMessage, getThreadMessage, sendMessage, type SendInput } from './messaging/messages.js';
import { poll, touchAgent } from './messaging/poll.js';
import {
  getThread,
  listThreads,
  setThreadStatus,
  tagThread,
  threadHistory,
  type HistoryInput,
  type ListThreadsInput,
  type TagThreadInput,
} from './messaging/threads.js';
import {
  agentActivity,
  derivedFromMessages,
  inboxView,
  type AgentActivityInput,
  type InboxViewInput,
} from './messaging/overview.js';
import { recent, type RecentInput } from './search/recent.js';
import type { Embedder } from './embed/embedder.js';
import { drainQueue, queueStatus, type DrainOptions } from './embed/queue.js';
import { readSpace } from './embed/store.js';
import { search, searchHybrid, type HybridOptions, type SearchInput } from './search/search.js';
import { exportBrain, type ExportInput } from './transfer/export.js';
import { importBrain } from './transfer/import.js';
import type { BackupResult } from './maintenance/backup.js';
import type { DoctorInput, DoctorReport } from './maintenance/doctor.js';
import type { ThreadStatus } from './validation.js';
import {
  findOrCreateSession,
  listSessions,
  newSession,
  sessionMessages,
  sessionInThread,
  sessionOfThread,
  type SessionInput,
  type ThreadSessionInput,
  type SessionMessagesInput,
} from './assistant/sessions.js';
import {
  acquireLease,
  getLease,
  releaseLease,
  renewLease,
  type AcquireLeaseInput,
  type ReleaseLeaseInput,
} from './assistant/leases.js';
import { latestSummary } from './assistant/summaries.js';
import {
  recordUsage,
  usageSummary,
  type RecordUsageInput,
  type UsageInput,
} from './assistant/usage.js';
import {
  addApprovalRule,
  getApproval,
  listApprovalRules,
  listApprovals,
  recordApproval,
  revokeApprovalRule,
  settleApproval,
  type AddRuleInput,
  type ListApprovalsInput,
  type RecordApprovalInput,
  type SettleApprovalInput,
} from './assistant/approvals.js';
import {
  decidePairing,
  isPaired,
  listPairings,
  requestPairing,
  type DecidePairingInput,
  type PairingSender,
  type RequestPairingInput,
} from './assistant/pairing.js';
import {
  claimCronRun,
  finishCronRun,
  getSchedulerState,
  initSchedulerState,
  interruptCronRuns,
  listCronRuns,
  retryCronRun,
  setSchedulerState,
  type ClaimCronRunInput,
  type CronRunsInput,
  type FinishCronRunInput,
} from './assistant/scheduler.js';
import {
  addReminder,
  cancelReminder,
  fireReminder,
  getReminder,
  listReminders,
  type AddReminderInput,
  type FireReminderInput,
  type ListRemindersInput,
} from './assistant/reminders.js';
import {
  addTask,
  completeTask,
  getTask,
  listTasks,
  type AddTaskInput,
  type ListTasksInput,
} from './assistant/tasks.js';
import {
  getOwnerTarget,
  setOwnerTarget,
  type SetOwnerTargetInput,
} from './assistant/owner-target.js';

export type { OpenBrainOptions };

/** The brain: one SQLite file that is both the conversation and the memory of a group of agents. */
export interface Brain {
  readonly path: string;
  /** Run inside each write transaction for every new message, STM entry and atom. */
  onIndexed(indexer: (item: IndexedItem) => void): void;

  /**
   * Register the agent if new and mark it seen now. With `wait: false` only if the write lock is
   * free at once (bookkeeping beside a read): false when it was not written.
   */
  touchAgent(name: string, options?: { wait?: boolean }): boolean;
  getAgent: (name: string) => ReturnType<typeof getAgent>;
  listAgents: () => ReturnType<typeof listAgents>;
  updateAgent: (input: UpdateAgentInput) => ReturnType<typeof updateAgent>;

  send: (input: SendInput) => ReturnType<typeof sendMessage>;
  getMessage: (id: string) => ReturnType<typeof getMessage>;
  /** A message with its receipts and acks, as a thread's history shows it. */
  getThreadMessage: (id: string) => ReturnType<typeof getThreadMessage>;
  poll: (agent: string) => ReturnType<typeof poll>;
  peek: (input: InboxInput) => ReturnType<typeof peekInbox>;
  read: (input: InboxInput) => ReturnType<typeof readInbox>;
  ack: (input: AckInput) => ReturnType<typeof ackMessage>;
  /** Mark one message read for one agent; whether it was unread for it. */
  markRead: (input: MarkReadInput) => boolean;
  thread: (input: HistoryInput) => ReturnType<typeof threadHistory>;
  getThread: (id: string) => ReturnType<typeof getThread>;
  threads: (input?: ListThreadsInput) => ReturnType<typeof listThreads>;
  setThreadStatus: (id: string, status: ThreadStatus) => ReturnType<typeof setThreadStatus>;
  tagThread: (input: TagThreadInput) => ReturnType<typeof tagThread>;

  /** Agents with unread, sent and received counts and their latest messages (read-only). */
  agentActivity: (input?: AgentActivityInput) => ReturnType<typeof agentActivity>;
  /** An agent's unread and read messages, marking nothing read. */
  inboxView: (input: InboxViewInput) => ReturnType<typeof inboxView>;
  /** What was learned (STM, atoms) from each of these messages. */
  derivedFromMessages: (ids: string[]) => ReturnType<typeof derivedFromMessages>;

  remember: (input: RememberInput) => ReturnType<typeof remember>;
  getStm: (id: string) => ReturnType<typeof getStm>;
  listStm: (input?: ListStmInput) => ReturnType<typeof listStm>;
  createAtom: (input: AtomInput) => ReturnType<typeof createAtom>;
  getAtom: (id: string) => ReturnType<typeof getAtom>;
  link: (input: LinkInput) => ReturnType<typeof linkAtoms>;
  chain: (input: ChainInput) => ReturnType<typeof atomChain>;

  /** Search by words only (FTS5), synchronously. */
  search: (input: SearchInput) => ReturnType<typeof search>;
  /** Search by words and meaning; words only when `embedder` is undefined or has no vectors here. */
  searchHybrid: (
    input: SearchInput,
    options?: HybridOptions & { embedder?: Embedder },
  ) => ReturnType<typeof searchHybrid>;
  /** Embed queued items until none is ready (see `startEmbeddingWorker` for a background loop). */
  embedQueued: (embedder: Embedder, options?: DrainOptions) => ReturnType<typeof drainQueue>;
  /** Pending and failed counts of the embedding queue, and the model of the vectors. */
  embedStatus: () => ReturnType<typeof queueStatus>;
  /** Which model made this brain's vectors, if any. */
  vectorSpace: () => ReturnType<typeof readSpace>;
  provenance: (input: ProvenanceInput) => ReturnType<typeof findProvenance>;
  recent: (input?: RecentInput) => ReturnType<typeof recent>;
  /**
   * Write the accesses of memories that searches and listings noted, without waiting for the
   * write lock: false when another writer holds it (they stay noted). Long-running processes
   * call it every few seconds; `close` calls it once more.
   */
  flushAccesses(): boolean;
  /**
   * Write everything reads noted for later: the accesses of memories and the row counts of words
   * that searches counted (src/search/word-counts.ts), never waiting for the write lock. False
   * when another writer holds it (they stay noted). Long-running processes call it every few
   * seconds; `close` calls it once more.
   */
  flushNoted(): boolean;
  /**
   * Idle-time upkeep, never waiting for the write lock: a few short steps of merging the
   * full-text indexes (so commits need not merge them), then a checkpoint of the WAL once it holds
   * 1 MiB (so writes rarely reach the keeper's limit). Long-running processes call it every few
   * seconds (`startIdleMaintenance`); `pending` says more merging remains. Does nothing read-only.
   */
  maintain(options?: MaintainOptions): MaintainResult;
  /**
   * Read what searches keep in memory (every index's row lengths) now, so the first searches of a
   * long-running process cost what later ones do. `brain chat` and `brain agent` call it at start.
   */
  warmSearch(): void;

  /** The session `name` (`chat/default`): its current thread, made when there is none. */
  session: (input: SessionInput) => ReturnType<typeof findOrCreateSession>;
  /** Point the session `name` at a fresh thread; the old one stays, searchable. */
  newSession: (input: SessionInput) => ReturnType<typeof newSession>;
  sessions: () => ReturnType<typeof listSessions>;
  /** The session `name` conducted in an existing thread (created or moved there). */
  sessionInThread: (input: ThreadSessionInput) => ReturnType<typeof sessionInThread>;
  /** The session a thread is or was the conversation of. */
  sessionOfThread: (threadId: string) => ReturnType<typeof sessionOfThread>;
  /** A thread's messages in order, after a given one when asked; costs the rows returned. */
  sessionMessages: (input: SessionMessagesInput) => ReturnType<typeof sessionMessages>;
  /** The compaction summary (STM, category `summary`) covering the thread furthest. */
  latestSummary: (threadId: string) => ReturnType<typeof latestSummary>;
  /** Take a lease (one turn per session across processes): true when taken. */
  acquireLease: (input: AcquireLeaseInput) => ReturnType<typeof acquireLease>;
  /** Extend a lease still held: false when it was taken over. */
  renewLease: (input: AcquireLeaseInput) => ReturnType<typeof renewLease>;
  releaseLease: (input: ReleaseLeaseInput) => ReturnType<typeof releaseLease>;
  getLease: (key: string) => ReturnType<typeof getLease>;
  /** Record one model call's tokens. */
  recordUsage: (input: RecordUsageInput) => ReturnType<typeof recordUsage>;
  /** Token sums by model, UTC day or source, each split by model and endpoint. */
  usage: (input?: UsageInput) => ReturnType<typeof usageSummary>;
  /** Record a permission decision on a tool call (`pending` while the owner is asked). */
  recordApproval: (input: RecordApprovalInput) => ReturnType<typeof recordApproval>;
  /** Settle a pending ask: approved, denied or timeout. */
  settleApproval: (input: SettleApprovalInput) => ReturnType<typeof settleApproval>;
  getApproval: (id: number) => ReturnType<typeof getApproval>;
  /** Decisions, newest first (only waiting asks with `pending`). */
  approvals: (input?: ListApprovalsInput) => ReturnType<typeof listApprovals>;
  /** Store an "always allow" rule; interpreters and shells are refused. */
  addApprovalRule: (input: AddRuleInput) => ReturnType<typeof addApprovalRule>;
  approvalRules: () => ReturnType<typeof listApprovalRules>;
  /** Remember where the assistant `agent` last heard its owner (`brain agent`'s delivery target). */
  setOwnerTarget: (input: SetOwnerTargetInput) => ReturnType<typeof setOwnerTarget>;
  /** Where the assistant `agent` last heard its owner, or null. */
  ownerTarget: (agent: string) => ReturnType<typeof getOwnerTarget>;
  revokeApprovalRule: (id: number) => ReturnType<typeof revokeApprovalRule>;
  /** A channel's sender off the allowlist asks to be paired: a code, or what became of it. */
  requestPairing: (input: RequestPairingInput) => ReturnType<typeof requestPairing>;
  /** Whether the owner approved this sender. */
  isPaired: (input: PairingSender) => boolean;
  /** Pending (unexpired) requests and approved senders, newest first. */
  pairings: () => ReturnType<typeof listPairings>;
  /** Approve or deny a pending code; NOT_FOUND when none is pending. */
  decidePairing: (input: DecidePairingInput) => ReturnType<typeof decidePairing>;
  /** Claim a cron job's due time before running it: undefined when it was claimed already. */
  claimCronRun: (input: ClaimCronRunInput) => ReturnType<typeof claimCronRun>;
  /** Settle a claimed cron run: end, outcome, delivered or not. */
  finishCronRun: (input: FinishCronRunInput) => ReturnType<typeof finishCronRun>;
  /** Cron runs, newest due time first. */
  cronRuns: (input?: CronRunsInput) => ReturnType<typeof listCronRuns>;
  /** Runs left `running` by a process that ended, now marked `interrupted`. */
  interruptCronRuns: () => ReturnType<typeof interruptCronRuns>;
  /** Run an interrupted run once more (once only): undefined when it cannot be. */
  retryCronRun: (id: number) => ReturnType<typeof retryCronRun>;
  /** A value the scheduler kept (last email UID, last heartbeat delivery), or undefined. */
  schedulerState: (key: string) => unknown;
  setSchedulerState: (key: string, value: unknown) => void;
  /** Keep a value only when none is kept; returns the kept one. */
  initSchedulerState: (key: string, value: unknown) => unknown;
  addReminder: (input: AddReminderInput) => ReturnType<typeof addReminder>;
  getReminder: (id: number) => ReturnType<typeof getReminder>;
  /** Pending reminders soonest first (`due_by`: the ones due); `all` adds done and cancelled. */
  reminders: (input?: ListRemindersInput) => ReturnType<typeof listReminders>;
  cancelReminder: (id: number) => ReturnType<typeof cancelReminder>;
  /** Claim a due reminder before sending it: false when it was fired or cancelled already. */
  fireReminder: (input: FireReminderInput) => ReturnType<typeof fireReminder>;
  addTask: (input: AddTaskInput) => ReturnType<typeof addTask>;
  getTask: (id: number) => ReturnType<typeof getTask>;
  tasks: (input?: ListTasksInput) => ReturnType<typeof listTasks>;
  completeTask: (id: number) => ReturnType<typeof completeTask>;

  export: (input?: ExportInput) => ReturnType<typeof exportBrain>;
  import: (doc: unknown) => ReturnType<typeof importBrain>;
  migrateSynapse: (path: string) => ReturnType<typeof migrateSynapse>;
  migrateCortex: (path: string, defaultAgent?: string) => ReturnType<typeof migrateCortex>;

  /**
   * Run `fn` — any number of this brain's writes — as one transaction: they commit together or
   * not at all. For bulk loads (a benchmark's build); each write inside still takes its usual path.
   */
  batch<T>(fn: () => T): T;

  /** Check integrity, full-text indexes, thread counters, deliveries; repair after a backup. */
  doctor: (input?: DoctorInput) => Promise<DoctorReport>;
  /** Copy the database to a new file with SQLite's online backup, while others keep writing. */
  backup: (file: string) => Promise<BackupResult>;

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
  const maintainer = createIdleMaintainer(ctx, options.dbPath);
  const brain: Brain = {
    path: options.dbPath,
    onIndexed: (indexer) => void ctx.indexers.push(indexer),

    touchAgent: (name, options) => {
      if (options?.wait === false) return writeWithoutWaiting(db, () => touchAgent(ctx, name));
      touchAgent(ctx, name);
      return true;
    },
    getAgent: (name) => getAgent(ctx, name),
    listAgents: () => listAgents(ctx),
    updateAgent: (input) => updateAgent(ctx, input),

    send: (input) => sendMessage(ctx, input),
    getMessage: (id) => getMessage(ctx, id),
    getThreadMessage: (id) => getThreadMessage(ctx, id),
    poll: (agent) => poll(ctx, agent),
    peek: (input) => peekInbox(ctx, input),
    read: (input) => readInbox(ctx, input),
    ack: (input) => ackMessage(ctx, input),
    markRead: (input) => markMessageRead(ctx, input),
    thread: (input) => threadHistory(ctx, input),
    getThread: (id) => getThread(ctx, id),
    threads: (input) => listThreads(ctx, input),
    setThreadStatus: (id, status) => setThreadStatus(ctx, id, status),
    tagThread: (input) => tagThread(ctx, input),

    agentActivity: (input) => agentActivity(ctx, input),
    inboxView: (input) => inboxView(ctx, input),
    derivedFromMessages: (ids) => derivedFromMessages(ctx, ids),

    remember: (input) => remember(ctx, input),
    getStm: (id) => getStm(ctx, id),
    listStm: (input) => listStm(ctx, input),
    createAtom: (input) => createAtom(ctx, input),
    getAtom: (id) => getAtom(ctx, id),
    link: (input) => linkAtoms(ctx, input),
    chain: (input) => atomChain(ctx, input),

    search: (input) => search(ctx, input),
    searchHybrid: (input, options = {}) => searchHybrid(ctx, options.embedder, input, options),
    embedQueued: (embedder, options) => drainQueue(ctx, embedder, options),
    embedStatus: () => queueStatus(ctx),
    vectorSpace: () => readSpace(ctx),
    provenance: (input) => findProvenance(ctx, input),
    recent: (input) => recent(ctx, input),
    flushAccesses: () => flushAccesses(ctx),
    flushNoted: () => flushNoted(ctx),
    maintain: (input) => maintainer.maintain(input),
    warmSearch: () => warmSearch(ctx),

    session: (input) => findOrCreateSession(ctx, input),
    newSession: (input) => newSession(ctx, input),
    sessions: () => listSessions(ctx),
    sessionInThread: (input) => sessionInThread(ctx, input),
    sessionOfThread: (threadId) => sessionOfThread(ctx, threadId),
    sessionMessages: (input) => sessionMessages(ctx, input),
    latestSummary: (threadId) => latestSummary(ctx, threadId),
    acquireLease: (input) => acquireLease(ctx, input),
    renewLease: (input) => renewLease(ctx, input),
    releaseLease: (input) => releaseLease(ctx, input),
    getLease: (key) => getLease(ctx, key),
    recordUsage: (input) => recordUsage(ctx, input),
    usage: (input) => usageSummary(ctx, input),
    recordApproval: (input) => recordApproval(ctx, input),
    settleApproval: (input) => settleApproval(ctx, input),
    getApproval: (id) => getApproval(ctx, id),
    approvals: (input) => listApprovals(ctx, input),
    addApprovalRule: (input) => addApprovalRule(ctx, input),
    approvalRules: () => listApprovalRules(ctx),
    revokeApprovalRule: (id) => revokeApprovalRule(ctx, id),
    requestPairing: (input) => requestPairing(ctx, input),
    isPaired: (input) => isPaired(ctx, input),
    pairings: () => listPairings(ctx),
    decidePairing: (input) => decidePairing(ctx, input),
    claimCronRun: (input) => claimCronRun(ctx, input),
    finishCronRun: (input) => finishCronRun(ctx, input),
    cronRuns: (input) => listCronRuns(ctx, input),
    interruptCronRuns: () => interruptCronRuns(ctx),
    retryCronRun: (id) => retryCronRun(ctx, id),
    schedulerState: (key) => getSchedulerState(ctx, key),
    setSchedulerState: (key, value) => setSchedulerState(ctx, key, value),
    initSchedulerState: (key, value) => initSchedulerState(ctx, key, value),
    addReminder: (input) => addReminder(ctx, input),
    getReminder: (id) => getReminder(ctx, id),
    reminders: (input) => listReminders(ctx, input),
    cancelReminder: (id) => cancelReminder(ctx, id),
    fireReminder: (input) => fireReminder(ctx, input),
    addTask: (input) => addTask(ctx, input),
    getTask: (id) => getTask(ctx, id),
    tasks: (input) => listTasks(ctx, input),
    completeTask: (id) => completeTask(ctx, id),
    setOwnerTarget: (input) => setOwnerTarget(ctx, input),
    ownerTarget: (agent) => getOwnerTarget(ctx, agent),

    export: (input) => exportBrain(ctx, input),
    import: (doc) => importBrain(ctx, doc),
    migrateSynapse: (path) => migrateSynapse(ctx, path),
    migrateCortex: (path, defaultAgent) => migrateCortex(ctx, path, defaultAgent),

    batch: (fn) => db.transaction(fn).immediate(),

    // Loaded when asked for: the one-off commands that run most never are (`brain search`, …).
    doctor: async (input) =>
      (await import('./maintenance/doctor.js')).runDoctor(db, options.dbPath, ctx.clock, input),
    backup: async (file) =>
      (await import('./maintenance/backup.js')).backupDatabase(db, options.dbPath, file),

    close: () => {
      if (!db.open) return;
      try {
        flushNoted(ctx); // one last attempt, never waiting: a closing read must not queue
      } finally {
        db.close();
      }
    },
  };
  const guarded = guardStorage(brain, options.dbPath, wal.check);
  connections.set(guarded, db);
  return guarded;
}
