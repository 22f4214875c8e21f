export { openBrain, type Brain, type OpenBrainOptions } from './brain.js';
export { openPoller, type Poller } from './poller.js';
export {
  loadConfig,
  defaultDbPath,
  EMBEDDERS,
  type BrainConfig,
  type ConfigOverrides,
  type EmbedderChoice,
} from './config.js';
export { BrainError, isBrainError, isUsageError, type BrainErrorCode } from './errors.js';
export { systemClock, type Clock } from './clock.js';
export { packageVersion } from './version.js';
export type { IndexedItem } from './context.js';
export { latestVersion, APPLICATION_ID } from './db/migrate.js';
export { idKind, type IdKind } from './ids.js';
export { MAX_SEARCH_LIMIT, DEFAULT_SEARCH_LIMIT } from './vocabulary.js';
export {
  check,
  extend,
  object,
  omit,
  pick,
  type Declaration,
  type Fields,
  type InputOf,
  type OutputOf,
} from './input/check.js';
export { boolean, type Field } from './input/fields.js';
export { toZod } from './input/zod.js';
export {
  PRIORITIES,
  THREAD_STATUSES,
  LINK_TYPES,
  SEARCH_TYPES,
  agentName,
  formatZodError,
  type Priority,
  type ThreadStatus,
  type LinkType,
  type SearchType,
} from './validation.js';
export type { AgentRecord, UpdateAgentInput } from './messaging/agents.js';
export {
  sendInput,
  type MessageRecord,
  type SendInput,
  type SendResult,
} from './messaging/messages.js';
export {
  inboxInput,
  ackInput,
  type InboxInput,
  type AckInput,
  type AckResult,
  type AckRecord,
  type MarkReadInput,
} from './messaging/inbox.js';
export type { PollResult } from './messaging/poll.js';
export type {
  AgentActivity,
  AgentActivityInput,
  InboxEntry,
  InboxView,
  InboxViewInput,
} from './messaging/overview.js';
export {
  watchBrain,
  type BrainWatcher,
  type ArrivedMessage,
  type BrainChanges,
  type NewMemory,
  type NewReceipt,
  type WatchOptions,
  type WatchTimers,
} from './messaging/watch.js';
export {
  historyInput,
  listThreadsInput,
  type ThreadRecord,
  type ThreadHistory,
  type ThreadMessage,
  type Receipt,
  type HistoryInput,
  type ListThreadsInput,
  type TagThreadInput,
} from './messaging/threads.js';
export {
  rememberInput,
  type StmRecord,
  type RememberInput,
  type ListStmInput,
} from './knowledge/stm.js';
export {
  atomInput,
  linkInput,
  type AtomRecord,
  type AtomInput,
  type LinkInput,
  type LinkRecord,
  type ChainInput,
  type AtomChain,
  type ChainStep,
} from './knowledge/atoms.js';
export { provenanceInput, type Provenance, type ProvenanceInput } from './knowledge/provenance.js';
export {
  searchInput,
  MAX_QUERY_CHARS,
  FUSION_DEPTH,
  type SearchInput,
  type SearchHit,
  type SearchResult,
  type SearchMode,
  type HybridOptions,
  type Retriever,
  type RetrieverEvidence,
} from './search/search.js';
export { RRF_K, RRF_WEIGHTS } from './search/fusion.js';
export {
  EmbedderError,
  type Embedder,
  type EmbedKind,
  type EmbedOptions,
} from './embed/embedder.js';
export { createEmbedder, type CreateEmbedderOptions } from './embed/create.js';
export { createOllamaEmbedder, probeOllama, type OllamaEmbedderOptions } from './embed/ollama.js';
export { createOfflineEmbedder, isOfflineModel } from './embed/offline.js';
export { createHashEmbedder } from './embed/offline-hash.js';
export {
  startEmbeddingWorker,
  type EmbeddingWorker,
  type EmbeddingWorkerOptions,
} from './embed/worker.js';
export type { QueueStatus, DrainOptions, DrainProgress, DrainResult } from './embed/queue.js';
export type { VectorSpace } from './embed/store.js';
export {
  evalLocomo,
  type LocomoEvalOptions,
  type LocomoReport,
  type ArmReport,
  type HaystackReport,
  type Latency,
  type RecallAtK,
} from './eval/locomo.js';
export { buildFtsQueries, queryTerms } from './search/fts-query.js';
export type { RecentInput, RecentItem } from './search/recent.js';
export type { ExportDocument } from './transfer/format.js';
export type { ImportResult, ImportCounts } from './transfer/import.js';
export { readJsonFile, describeFsError } from './transfer/json-file.js';
export type { LegacyReport, SkippedRecord } from './legacy/fields.js';
export { DURABILITIES, type Durability } from './db/open.js';
export { storageFailureCode } from './db/storage-errors.js';
export type { BackupResult } from './maintenance/backup.js';
export {
  MAINTAIN_INTERVAL_MS,
  startIdleMaintenance,
  type IdleMaintenanceOptions,
} from './maintenance/idle-timer.js';
export type { MaintainOptions, MaintainResult } from './maintenance/idle.js';
export { measureStorage, type StorageStats } from './maintenance/storage-stats.js';
export type { DoctorReport, CheckReport, DoctorInput } from './maintenance/doctor.js';
export { DOCTOR_CHECKS, type DoctorCheck } from './maintenance/checks.js';
export {
  sessionName,
  type SessionRecord,
  type SessionInput,
  type SessionMessagesInput,
  type ThreadSessionInput,
} from './assistant/sessions.js';
export {
  leaseHolder,
  type LeaseHolder,
  type LeaseRecord,
  type AcquireLeaseInput,
  type ReleaseLeaseInput,
} from './assistant/leases.js';
export { SUMMARY_CATEGORY, type SessionSummary } from './assistant/summaries.js';
export type { OwnerTarget, SetOwnerTargetInput } from './assistant/owner-target.js';
export {
  USAGE_GROUPS,
  type UsageGroup,
  type UsageInput,
  type UsageRow,
  type UsageRecord,
  type RecordUsageInput,
  type TokenSums,
} from './assistant/usage.js';
export {
  APPROVAL_DECISIONS,
  APPROVAL_DECIDERS,
  INTERPRETERS,
  RULE_PATTERN_MAX,
  SUMMARY_MAX,
  argsDigest,
  commandRulePattern,
  isInterpreter,
  parseCommandRule,
  readApprovalRule,
  type ApprovalDecision,
  type ApprovalDecider,
  type ApprovalRecord,
  type ApprovalRule,
  type AddRuleInput,
  type ListApprovalsInput,
  type RecordApprovalInput,
  type SettleApprovalInput,
} from './assistant/approvals.js';
export {
  cutNote,
  cutVisibly,
  escapeInvisible,
  quoteWord,
  shownValue,
  splitQuoted,
} from './assistant/shown.js';
export {
  PAIRING_ALPHABET,
  PAIRING_CODE_LENGTH,
  PAIRING_MAX_PENDING,
  PAIRING_TTL_MS,
  type DecidePairingInput,
  type PairingRecord,
  type PairingRequestResult,
  type PairingSender,
  type PairingStatus,
  type RequestPairingInput,
} from './assistant/pairing.js';
export {
  CRON_OUTCOMES,
  RETRIED,
  type CronOutcome,
  type CronRunRecord,
  type ClaimCronRunInput,
  type FinishCronRunInput,
  type CronRunsInput,
} from './assistant/scheduler.js';
export {
  REMINDER_MODES,
  type ReminderMode,
  type ReminderStatus,
  type ReminderRecord,
  type AddReminderInput,
  type ListRemindersInput,
  type FireReminderInput,
} from './assistant/reminders.js';
export {
  TASK_PRIORITIES,
  type TaskPriority,
  type TaskRecord,
  type AddTaskInput,
  type ListTasksInput,
} from './assistant/tasks.js';
export {
  ANTHROPIC_PRICES,
  costOf,
  estimateCost,
  priceOf,
  type ModelPrice,
} from './assistant/prices.js';
export { allowedHost, allowedOrigin, isLoopback } from './access/origin.js';
export {
  bearerToken,
  parseTokens,
  readTokensFile,
  MIN_TOKEN_LENGTH,
  type TokenTable,
  type LoadedTokens,
} from './access/tokens.js';
