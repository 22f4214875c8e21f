import { z } from 'zod';
import { AGENT_NAME_MAX, AGENT_NAME_MESSAGES, AGENT_NAME_PATTERN } from './agent-name.js';
import { BrainError } from './errors.js';
import { ID_PATTERNS } from './ids.js';

/** Text that SQLite and FTS5 store faithfully: no NUL characters, no lone surrogates. */
export function text(max: number) {
  return z
    .string()
    .max(max, `must be at most ${max} characters`)
    .refine((s) => !s.includes('\0'), 'must not contain NUL characters')
    .refine((s) => s.isWellFormed(), 'must be valid Unicode (no lone surrogates)');
}

/** Lookups by id take any string (an unknown id is simply absent), but nothing else. */
export function lookupKey(value: unknown, field: string): string {
  if (typeof value !== 'string')
    throw new BrainError('INVALID_INPUT', `${field}: must be a string`);
  return value;
}

/** A path given to the brain to read. */
export const filePath = text(4096).refine((s) => s.trim().length > 0, 'must not be empty');

export const agentName = z
  .string()
  .min(1, AGENT_NAME_MESSAGES.empty)
  .max(AGENT_NAME_MAX, AGENT_NAME_MESSAGES.long)
  .regex(AGENT_NAME_PATTERN, AGENT_NAME_MESSAGES.pattern);

export const messageId = z
  .string()
  .regex(ID_PATTERNS.message, 'must be a message id like syn_0123456789ab');
export const threadId = z.string().regex(ID_PATTERNS.thread, 'must be a thread id like thr_<uuid>');
export const stmId = z.string().regex(ID_PATTERNS.stm, 'must be an STM id like stm_0123456789ab');
export const atomId = z
  .string()
  .regex(ID_PATTERNS.atom, 'must be an atom id like atm_0123456789ab');
export const knowledgeOrMessageId = z
  .string()
  .refine(
    (s) => ID_PATTERNS.message.test(s) || ID_PATTERNS.stm.test(s) || ID_PATTERNS.atom.test(s),
    'must be a message, STM or atom id (syn_…, stm_…, atm_…)',
  );

/** An ISO 8601 date or date-time; dates without a zone are UTC. Normalised to ISO with ms. */
export const isoTime = z.string().transform((s, ctx) => {
  const trimmed = s.trim();
  const ok = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(
    trimmed,
  );
  const withZone = /^\d{4}-\d{2}-\d{2}$/.test(trimmed)
    ? `${trimmed}T00:00:00Z`
    : /(Z|[+-]\d{2}:?\d{2})$/.test(trimmed)
      ? trimmed
      : `${trimmed}Z`;
  const d = new Date(withZone.replace(' ', 'T'));
  if (!ok || Number.isNaN(d.getTime())) {
    ctx.addIssue({
      code: 'custom',
      message: 'must be an ISO 8601 date such as 2026-01-31 or 2026-01-31T12:00:00Z',
    });
    return z.NEVER;
  }
  return d.toISOString();
});

export const jsonObject = z.record(z.string(), z.unknown());

export {
  PRIORITIES,
  THREAD_STATUSES,
  LINK_TYPES,
  SEARCH_TYPES,
  type Priority,
  type ThreadStatus,
  type LinkType,
  type SearchType,
} from './vocabulary.js';

/** "body: is required; priority: must be one of …" — every problem, each naming its field. */
export function formatZodError(error: z.ZodError, names: Record<string, string> = {}): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.map(String).join('.');
      const field = names[path] ?? (path || 'input');
      return `${field}: ${describeIssue(issue)}`;
    })
    .join('; ');
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type' && /received undefined/.test(issue.message))
    return 'is required';
  if (issue.code === 'invalid_value' && 'values' in issue) {
    return `must be one of ${issue.values.map((v) => String(v)).join(', ')}`;
  }
  if (issue.code === 'unrecognized_keys') return `unknown field(s) ${issue.keys.join(', ')}`;
  return issue.message.replace(/^Invalid input: /, '');
}

/** Parse at an edge: a value of the schema's type, or a BrainError naming the field. */
export function parseInput<T extends z.ZodType>(
  schema: T,
  input: unknown,
  names?: Record<string, string>,
): z.output<T> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw new BrainError('INVALID_INPUT', formatZodError(parsed.error, names));
  return parsed.data;
}
