import { z } from 'zod';
import { APPROVAL_DECIDERS, APPROVAL_DECISIONS } from '../assistant/approvals.js';
import { CRON_OUTCOMES, REMINDER_MODES, TASK_PRIORITIES } from '../assistant/vocabulary.js';
import { agentName, messageId, text, threadId } from '../validation.js';
import { storedTime } from './stored-time.js';

/**
 * The assistant's sections of an export (version 2): what it keeps besides messages and knowledge.
 * Free text is taken at any length the brain stored it (an export must never refuse its own
 * brain); ids are the ones `brain reminders`, `brain tasks`, `brain approvals` and
 * `brain cron history` show, so a restored brain answers to the same numbers.
 */

/** Longer than any text the brain lets in: a bound, not a rule. */
const STORED = 1_000_000;
const name = text(STORED).min(1, 'must not be empty');
const rowId = z.number().int().min(1);

export const exportSession = z.strictObject({
  name,
  agent: agentName,
  owner: agentName,
  /** The current thread: `brain chat --session NAME` continues it. */
  thread_id: threadId,
  created_at: storedTime,
  /** Every thread the session has had, the current one included. */
  threads: z.array(z.strictObject({ thread_id: threadId, started_at: storedTime })),
});

export const exportReminder = z.strictObject({
  id: rowId,
  text: text(STORED),
  mode: z.enum(REMINDER_MODES),
  due_at: storedTime,
  repeat: text(STORED).nullable(),
  time_zone: text(STORED).nullable(),
  status: z.enum(['pending', 'done', 'cancelled']),
  created_at: storedTime,
  fired_at: storedTime.nullable(),
  late: z.boolean(),
  message_id: messageId.nullable(),
  /** Where the foreign content of the turn that set it came from (migration 0018). */
  tainted_by: text(STORED).nullable(),
});

export const exportTask = z.strictObject({
  id: rowId,
  title: text(STORED),
  priority: z.enum(TASK_PRIORITIES),
  due_at: storedTime.nullable(),
  status: z.enum(['pending', 'done']),
  created_at: storedTime,
  completed_at: storedTime.nullable(),
  message_id: messageId.nullable(),
  tainted_by: text(STORED).nullable(),
});

/** A run's process (pid, host) is not carried: it names a process of the exporting machine. */
export const exportCronRun = z.strictObject({
  id: rowId,
  job: name,
  due_at: storedTime,
  started_at: storedTime,
  ended_at: storedTime.nullable(),
  outcome: z.enum(CRON_OUTCOMES),
  delivered: z.boolean(),
  late: z.boolean(),
  detail: text(STORED),
});

export const exportApproval = z.strictObject({
  id: rowId,
  tool: name,
  args_digest: text(200),
  summary: text(STORED),
  decision: z.enum(APPROVAL_DECISIONS),
  decided_by: z.enum(APPROVAL_DECIDERS).nullable(),
  reason: text(STORED),
  session: text(STORED).nullable(),
  message_id: messageId.nullable(),
  asked_at: storedTime,
  decided_at: storedTime.nullable(),
});

export const exportApprovalRule = z.strictObject({
  id: rowId,
  tool: name,
  pattern: text(STORED),
  created_at: storedTime,
});

export const exportPairing = z.strictObject({
  channel: name,
  user_id: name,
  name: text(STORED),
  code: text(200),
  status: z.enum(['pending', 'approved', 'denied']),
  created_at: storedTime,
  expires_at: storedTime,
  decided_at: storedTime.nullable(),
});

export const exportOwnerTarget = z.strictObject({
  agent: agentName,
  channel: name,
  chat_id: name,
  updated_at: storedTime,
});

const tokens = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

export const exportUsage = z.strictObject({
  at: storedTime,
  source: name,
  session: text(STORED).nullable(),
  model: name,
  endpoint: name,
  input_tokens: tokens,
  output_tokens: tokens,
  cache_read_tokens: tokens,
  cache_write_tokens: tokens,
  message_id: messageId.nullable(),
});

export const exportSchedulerState = z.strictObject({
  key: name,
  /** The value as the scheduler kept it (JSON). */
  value: z.json(),
  updated_at: storedTime,
});

export const assistantSections = {
  sessions: z.array(exportSession),
  reminders: z.array(exportReminder),
  tasks: z.array(exportTask),
  cron_runs: z.array(exportCronRun),
  approvals: z.array(exportApproval),
  approval_rules: z.array(exportApprovalRule),
  pairings: z.array(exportPairing),
  owner_targets: z.array(exportOwnerTarget),
  model_usage: z.array(exportUsage),
  scheduler_state: z.array(exportSchedulerState),
};

export type AssistantSection = keyof typeof assistantSections;
export type AssistantExport = {
  [K in AssistantSection]: z.infer<(typeof assistantSections)[K]>;
};

/**
 * Every table of a brain and what an export does with it: `exported` (under the named section),
 * `derived` (rebuilt from the exported rows, by triggers on import or by `brain embed`), or
 * `process` (meaningful only to the processes of the brain it was in). A table missing here
 * fails a test, so a new migration's table is carried or its absence explained.
 */
export const TABLES: Record<string, { kind: 'exported' | 'derived' | 'process'; why: string }> = {
  agents: { kind: 'exported', why: 'agents' },
  threads: { kind: 'exported', why: 'threads' },
  thread_tags: { kind: 'exported', why: 'threads[].tags' },
  messages: { kind: 'exported', why: 'messages' },
  deliveries: { kind: 'exported', why: 'messages[].receipts' },
  acks: { kind: 'exported', why: 'messages[].acks' },
  attachment_blobs: { kind: 'exported', why: 'messages[].attachments (bytes in base64)' },
  message_attachments: { kind: 'exported', why: 'messages[].attachments' },
  stm: { kind: 'exported', why: 'stm' },
  stm_categories: { kind: 'exported', why: 'stm[].categories' },
  stm_sources: { kind: 'exported', why: 'stm[].sources' },
  extract_cursor: {
    kind: 'derived',
    why: "how far each extractor has read: it reads an imported brain's messages again, and what it learns again merges with the imported entries",
  },
  extract_queue: { kind: 'derived', why: 'messages waiting to be read again, as above' },
  reflections: {
    kind: 'process',
    why: "reflection's runs: the knowledge they changed is exported as it is now",
  },
  knowledge_changes: {
    kind: 'process',
    why: "reflection's changes, undoable in the brain they were made in (they name its rows)",
  },
  atoms: { kind: 'exported', why: 'atoms' },
  atom_links: { kind: 'exported', why: 'atom_links' },
  sessions: { kind: 'exported', why: 'sessions' },
  session_threads: { kind: 'exported', why: 'sessions[].threads' },
  reminders: { kind: 'exported', why: 'reminders' },
  tasks: { kind: 'exported', why: 'tasks' },
  cron_runs: { kind: 'exported', why: 'cron_runs (without the process that claimed a run)' },
  approvals: { kind: 'exported', why: 'approvals (without the process that waits on an ask)' },
  approval_rules: { kind: 'exported', why: 'approval_rules' },
  pairings: { kind: 'exported', why: 'pairings' },
  owner_targets: { kind: 'exported', why: 'owner_targets' },
  model_usage: { kind: 'exported', why: 'model_usage' },
  scheduler_state: { kind: 'exported', why: 'scheduler_state' },
  agent_counts: { kind: 'derived', why: "each agent's sent and received counts, kept by triggers" },
  receipt_log: { kind: 'derived', why: 'the last reads and acks for live watchers, by triggers' },
  messages_fts: { kind: 'derived', why: 'the full-text index, kept by triggers' },
  stm_fts: { kind: 'derived', why: 'the full-text index, kept by triggers' },
  atoms_fts: { kind: 'derived', why: 'the full-text index, kept by triggers' },
  search_word_counts: { kind: 'derived', why: "words' row counts, noted again by searches" },
  search_count_epochs: { kind: 'derived', why: "the word counts' generation, with them" },
  search_norms: { kind: 'derived', why: "the indexes' row lengths, saved again by searches" },
  embeddings: {
    kind: 'derived',
    why: 'vectors: imported items are queued and `brain embed` makes them',
  },
  embedding_space: { kind: 'derived', why: 'the model of the vectors, set by `brain embed`' },
  embed_queue: { kind: 'derived', why: 'what waits to be embedded: filled by the import' },
  embed_cursor: { kind: 'derived', why: 'the embedding queue, as above' },
  vec_index: { kind: 'derived', why: 'the vector index over embeddings' },
  leases: { kind: 'process', why: 'which process of this machine runs a turn now' },
  delegated_tasks: {
    kind: 'process',
    why: "the assistant's sub-turns: their answers went to their callers or the owner, and their sessions' threads are exported",
  },
  webhook_marks: {
    kind: 'process',
    why: "how far each hook has read: a brain's hooks start at its newest rows, so an import posts no old events",
  },
  webhook_deliveries: {
    kind: 'process',
    why: 'what this brain posted to its hooks, and what is waiting to be retried there',
  },
  thread_closures: {
    kind: 'process',
    why: "when threads were closed, read by this brain's hooks (the threads' status is exported)",
  },
};

/** The entry of TABLES for a table, its FTS5 and vec0 shadow tables included. */
export function tableTreatment(table: string): (typeof TABLES)[string] | undefined {
  const base = /^(messages_fts|stm_fts|atoms_fts|vec_index)(_\w+)?$/.exec(table)?.[1] ?? table;
  return TABLES[base];
}
