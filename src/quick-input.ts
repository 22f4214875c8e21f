// Quick checks of the input of the one-shot commands other than search (send, read, thread,
// provenance), without zod. Each answers the checked value for plainly valid input, and undefined
// for anything else (any doubt included): the caller then hands the input to the library's schema,
// whose answers and error messages stay the only ones. Whatever a quick check accepts, its schema
// accepts and checks to the same value (test/src/quick-input.test.ts holds them to it).
import { agentNameProblems } from './agent-name.js';
import { ID_PATTERNS } from './ids.js';
import type { ProvenanceArgs } from './knowledge/provenance-run.js';
import type { InboxArgs } from './messaging/inbox-run.js';
import type { SendArgs } from './messaging/send-run.js';
import type { HistoryArgs } from './messaging/thread-run.js';
import { PRIORITIES, type Priority } from './vocabulary.js';

type Fields = Record<string, unknown>;

const SEND_KEYS = [
  'from',
  'to',
  'subject',
  'body',
  'priority',
  'thread',
  'reply_to',
  'metadata',
  'tags',
  'at',
];

/** The checked input of a plainly valid send, or undefined (then the schema in messages.ts decides). */
export function quickSendArgs(input: unknown): SendArgs | undefined {
  const r = fieldsOf(input, SEND_KEYS);
  if (!r || r.at !== undefined) return undefined; // times are the schema's to normalise
  if (!isAgentName(r.from)) return undefined;
  if (r.to !== undefined && r.to !== null && !isAgentName(r.to)) return undefined;
  if (r.subject !== undefined && !isText(r.subject, 500)) return undefined;
  if (!isText(r.body, Number.MAX_SAFE_INTEGER) || r.body.trim().length === 0) return undefined;
  const priority = r.priority ?? 'normal';
  if (!(PRIORITIES as readonly unknown[]).includes(priority)) return undefined;
  if (r.thread !== undefined && !matches(r.thread, ID_PATTERNS.thread)) return undefined;
  if (r.reply_to !== undefined && !matches(r.reply_to, ID_PATTERNS.message)) return undefined;
  if (r.metadata !== undefined && !isPlainRecord(r.metadata)) return undefined;
  if (r.tags !== undefined && !isTagList(r.tags)) return undefined;

  const args: SendArgs = { from: r.from, body: r.body, priority: priority as Priority };
  if (r.to !== undefined) args.to = r.to as string | null;
  if (r.subject !== undefined) args.subject = r.subject;
  if (r.thread !== undefined) args.thread = r.thread as string;
  if (r.reply_to !== undefined) args.reply_to = r.reply_to as string;
  if (r.metadata !== undefined) args.metadata = r.metadata as Record<string, unknown>;
  if (r.tags !== undefined) args.tags = r.tags as string[];
  return args;
}

/** The checked input of a plainly valid inbox read (`read`, `inbox`), or undefined. */
export function quickInboxArgs(input: unknown): InboxArgs | undefined {
  const r = fieldsOf(input, ['agent', 'limit']);
  if (!r || !isAgentName(r.agent)) return undefined;
  const limit = count(r.limit, 50, 1, 1000);
  return limit === undefined ? undefined : { agent: r.agent, limit };
}

/** The checked input of a plainly valid thread history request, or undefined. */
export function quickHistoryArgs(input: unknown): HistoryArgs | undefined {
  const r = fieldsOf(input, ['thread_id', 'limit', 'offset']);
  if (!r || !matches(r.thread_id, ID_PATTERNS.thread)) return undefined;
  const limit = count(r.limit, 50, 1, 1000);
  const offset = count(r.offset, 0, 0, 999_999_999);
  if (limit === undefined || offset === undefined) return undefined;
  return { thread_id: r.thread_id, limit, offset };
}

/** The checked input of a plainly valid provenance request, or undefined. */
export function quickProvenanceArgs(input: unknown): ProvenanceArgs | undefined {
  const r = fieldsOf(input, ['id', 'context']);
  if (!r || typeof r.id !== 'string') return undefined;
  const { message, stm, atom } = ID_PATTERNS;
  if (!message.test(r.id) && !stm.test(r.id) && !atom.test(r.id)) return undefined;
  const context = count(r.context, 2, 0, 50);
  return context === undefined ? undefined : { id: r.id, context };
}

/** A plain object with no key beyond the known ones, or undefined. */
function fieldsOf(input: unknown, keys: readonly string[]): Fields | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return undefined;
  for (const key of Object.keys(input)) if (!keys.includes(key)) return undefined;
  return input as Fields;
}

function isAgentName(value: unknown): value is string {
  return agentNameProblems(value).length === 0;
}

/** What `text(max)` in validation.ts accepts. */
function isText(value: unknown, max: number): value is string {
  return (
    typeof value === 'string' &&
    value.length <= max &&
    !value.includes('\0') &&
    value.isWellFormed()
  );
}

function matches(value: unknown, pattern: RegExp): value is string {
  return typeof value === 'string' && pattern.test(value);
}

/**
 * A whole number in bounds as the CLI passes it (a string of plain digits) or as a caller does (a
 * number); the default when absent; undefined for anything the schema's coercion might read
 * otherwise (" 5", "1e2", "05").
 */
function count(value: unknown, fallback: number, min: number, max: number): number | undefined {
  let n: number;
  if (value === undefined) n = fallback;
  else if (typeof value === 'string' && /^(0|[1-9][0-9]{0,8})$/.test(value)) n = Number(value);
  else if (typeof value === 'number' && Number.isSafeInteger(value)) n = value;
  else return undefined;
  return n >= min && n <= max ? n : undefined;
}

/** An object as JSON.parse makes one; a `__proto__` key is left to the schema. */
function isPlainRecord(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  return !Object.prototype.hasOwnProperty.call(value, '__proto__');
}

function isTagList(value: unknown): boolean {
  return (
    Array.isArray(value) &&
    value.length <= 32 &&
    value.every((tag) => isText(tag, 64) && (tag as string).length >= 1)
  );
}
