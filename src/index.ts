export {
  openBrain,
  SECTION_NAMES,
  type Brain,
  type BrainCore,
  type OpenBrainOptions,
  type SectionName,
  type Sections,
} from './brain.js';
export {
  loadConfig,
  defaultDbPath,
  EMBEDDERS,
  type BrainConfig,
  type ConfigOverrides,
  type EmbedderChoice,
} from './config.js';
export { BrainError, isBrainError, isUsageError, type BrainErrorCode } from './errors.js';
export { systemClock, zonedParts, zoneOffsetMs, type Clock, type ZonedParts } from './clock.js';
export { packageVersion } from './version.js';
export { packageRoot } from './db/package-root.js';
export { agentNameProblems } from './agent-name.js';
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
export { agentName, boolean, type Field } from './input/fields.js';
export { toZod, zodField } from './input/zod.js';
export { formatZodError } from './input/zod-words.js';
export {
  EXTRACT_THREADS,
  PROFILE_CATEGORY,
  PRIORITIES,
  THREAD_STATUSES,
  LINK_TYPES,
  SEARCH_TYPES,
  type Priority,
  type ThreadStatus,
  type LinkType,
  type SearchType,
  type ExtractThreads,
} from './vocabulary.js';
export type { AgentRecord, UpdateAgentInput } from './messaging/agents.js';
export {
  sendInput,
  type MessageRecord,
  type SendInput,
  type SendResult,
} from './messaging/messages.js';
export {
  INLINE_MAX_BYTES,
  type AttachmentInfo,
  type AttachmentInput,
  type PreparedAttachment,
  type StoredAttachment,
} from './attachments/store.js';
export { INLINE_IMAGE_TYPES, servedAs } from './attachments/sniff.js';
export { attachmentsFolder } from './attachments/files.js';
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
  atomInput,
  linkInput,
  occurredAsSaid,
  provenanceInput,
  rememberInput,
  type AtomInput,
  type ChainInput,
  type LinkInput,
  type ListStmInput,
  type ProvenanceInput,
  type RememberInput,
} from './knowledge/input.js';
export type { StmRecord } from './knowledge/stm.js';
export type { ProfileFact, ProfileWho } from './knowledge/profile.js';
export {
  extractInput,
  insightsInput,
  type ExtractInput,
  type InsightsInput,
} from './knowledge/input.js';
export { createExtractor } from './knowledge/extract/create.js';
export { createSummarizer, SUMMARY_EVERY } from './knowledge/extract/summary.js';
export type {
  Summarizer,
  SummaryPassOptions,
  SummaryPassResult,
  ThreadSummary,
} from './knowledge/extract/summary.js';
export {
  EXTRACT_CATEGORIES,
  type ExtractCategory,
  type ExtractedEntry,
  type ExtractTurn,
  type Extractor,
} from './knowledge/extract/types.js';
export type {
  ExtractOptions,
  ExtractResult,
  ExtractStatus,
  ExtractedFrom,
} from './knowledge/extract/drain.js';
export type { Insight, InsightSource } from './knowledge/extract/insights.js';
export type {
  ChangeKind,
  FollowUp,
  KnowledgeChange,
  ReflectOptions,
  ReflectResult,
} from './knowledge/extract/reflect.js';
export type { ExtractionWorker, ExtractionWorkerOptions } from './knowledge/extract/worker.js';
export type { AtomRecord, LinkRecord, AtomChain, ChainStep } from './knowledge/atoms.js';
export type { Provenance } from './knowledge/provenance.js';
export { searchInput, MAX_QUERY_CHARS, type SearchInput } from './search/input.js';
export { readTime, readTimeBound } from './search/input.js';
export type { TimeReading } from './search/time-words.js';
export type {
  SearchHit,
  SearchResult,
  SearchMode,
  HybridOptions,
  Retriever,
  RetrieverEvidence,
} from './search/search.js';
export { RRF_K, RRF_WEIGHTS } from './search/fusion.js';
export {
  EmbedderError,
  type Embedder,
  type EmbedKind,
  type EmbedOptions,
} from './embed/embedder.js';
export { createEmbedder, type CreateEmbedderOptions } from './embed/create.js';
export type { OllamaEmbedderOptions } from './embed/ollama.js';
export { createHashEmbedder } from './embed/offline-hash.js';
export {
  startEmbeddingWorker,
  type EmbeddingWorker,
  type EmbeddingWorkerOptions,
} from './embed/worker.js';
export type { QueueStatus, DrainOptions, DrainProgress, DrainResult } from './embed/queue.js';
export type { VectorSpace } from './embed/store.js';
export { evalExtract, evalLocomo, readLocomo } from './eval/run.js';
export type { ExtractEvalOptions, ExtractEvalReport } from './eval/extract.js';
export type { LocomoConversation } from './eval/locomo-format.js';
export type {
  LocomoEvalOptions,
  LocomoReport,
  ArmReport,
  HaystackReport,
  Latency,
  RecallAtK,
} from './eval/locomo.js';
export { recentInput, type RecentInput } from './search/input.js';
export type { RecentItem } from './search/recent.js';
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
export type { DoctorCheck } from './maintenance/checks.js';
export type { ReplicationState } from './maintenance/section.js';
export type {
  RetentionPolicy,
  RetentionLimits,
  RetentionPlan,
  RetentionStep,
  RetentionResult,
} from './maintenance/retention.js';
export {
  WEBHOOK_EVENTS,
  resolveWebhooks,
  type WebhookConfig,
  type Webhook,
  type WebhookEvent,
  type WebhooksConfig,
} from './webhooks/config.js';
export {
  SIGNATURE_HEADER,
  DEFAULT_TOLERANCE_SECONDS,
  signPayload,
  verifySignature,
  type SignatureCheck,
} from './webhooks/signature.js';
export type { DeliveryRecord, DeliveryStatus } from './webhooks/deliveries.js';
export type { WebhookWorker, WebhookWorkerOptions, TickResult } from './webhooks/worker.js';
export {
  DEFAULT_SYNC_INTERVAL,
  describeReplica,
  litestreamConfig,
  parseReplicaUrl,
  parseSyncInterval,
  type LitestreamConfigOptions,
  type Replica,
} from './replication/replica.js';
export {
  parseGenerations,
  parseGoDuration,
  replicationLag,
  type Generation,
} from './replication/generations.js';
export type {
  SessionRecord,
  SessionInput,
  SessionMessagesInput,
  ThreadSessionInput,
} from './assistant/sessions.js';
export type { LeaseRecord, AcquireLeaseInput, ReleaseLeaseInput } from './assistant/leases.js';
export type { SessionSummary } from './assistant/summaries.js';
// The assistant's fixed words and the readings of approval rules: its sections' code (and zod)
// stays unloaded until a brain is opened with the assistant section.
export {
  APPROVAL_DECISIONS,
  APPROVAL_DECIDERS,
  CRON_OUTCOMES,
  INTERPRETERS,
  PAIRING_ALPHABET,
  PAIRING_CODE_LENGTH,
  PAIRING_MAX_PENDING,
  PAIRING_TTL_MS,
  REMINDER_MODES,
  RETRIED,
  RULE_PATTERN_MAX,
  SUMMARY_CATEGORY,
  TASK_PRIORITIES,
  USAGE_GROUPS,
  argsDigest,
  commandRulePattern,
  isInterpreter,
  leaseHolder,
  parseCommandRule,
  readApprovalRule,
  type ApprovalDecision,
  type ApprovalDecider,
  type LeaseHolder,
} from './assistant/vocabulary.js';
export type { OwnerTarget, SetOwnerTargetInput } from './assistant/owner-target.js';
export type {
  UsageGroup,
  UsageInput,
  UsageRow,
  UsageRecord,
  RecordUsageInput,
  TokenSums,
} from './assistant/usage.js';
export type {
  ApprovalRecord,
  ApprovalRule,
  AddRuleInput,
  AnswerApprovalInput,
  DecidedApproval,
  ListApprovalsInput,
  RecordApprovalInput,
  SettleApprovalInput,
} from './assistant/approvals.js';
export {
  cutNote,
  cutVisibly,
  escapeInvisible,
  quoteWord,
  shownValue,
  splitQuoted,
} from './assistant/shown.js';
export type {
  DecidePairingInput,
  PairingRecord,
  PairingRequestResult,
  PairingSender,
  PairingStatus,
  RequestPairingInput,
} from './assistant/pairing.js';
export type {
  CronOutcome,
  CronRunRecord,
  ClaimCronRunInput,
  FinishCronRunInput,
  CronRunsInput,
} from './assistant/scheduler.js';
export type {
  ReminderMode,
  ReminderStatus,
  ReminderRecord,
  AddReminderInput,
  ListRemindersInput,
  FireReminderInput,
} from './assistant/reminders.js';
export type { TaskPriority, TaskRecord, AddTaskInput, ListTasksInput } from './assistant/tasks.js';
export type {
  DelegationRecord,
  DelegationStatus,
  FinishDelegationInput,
  ListDelegationsInput,
  StartDelegationInput,
} from './assistant/delegations.js';
export {
  ANTHROPIC_PRICES,
  costOf,
  estimateCost,
  priceOf,
  type ModelPrice,
} from './assistant/prices.js';
