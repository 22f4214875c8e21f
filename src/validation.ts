import { z } from 'zod';
import { AGENT_NAME_MAX, AGENT_NAME_MESSAGES, AGENT_NAME_PATTERN } from './agent-name.js';
import { BrainError } from './errors.js';
import { ID_PATTERNS } from './ids.js';
import { WORDS, idWords, normaliseIsoTime } from './input/fields.js';
import { formatZodError } from './input/zod-words.js';

export { formatZodError };

// The zod builders of the inputs not yet declared with the input kit (src/input/), in the kit's
// words.

export { lookupKey } from './input/fields.js';

/** Text that SQLite and FTS5 store faithfully: no NUL characters, no lone surrogates. */
export function text(max: number) {
  return z
    .string()
    .max(max, WORDS.tooLong(max))
    .refine((s) => !s.includes('\0'), WORDS.nul)
    .refine((s) => s.isWellFormed(), WORDS.unicode);
}

/** A path given to the brain to read. */
export const filePath = text(4096).refine((s) => s.trim().length > 0, WORDS.empty);

export const agentName = z
  .string()
  .min(1, AGENT_NAME_MESSAGES.empty)
  .max(AGENT_NAME_MAX, AGENT_NAME_MESSAGES.long)
  .regex(AGENT_NAME_PATTERN, AGENT_NAME_MESSAGES.pattern);

export const messageId = z.string().regex(ID_PATTERNS.message, idWords(['message']));
export const threadId = z.string().regex(ID_PATTERNS.thread, idWords(['thread']));
export const stmId = z.string().regex(ID_PATTERNS.stm, idWords(['stm']));
export const atomId = z.string().regex(ID_PATTERNS.atom, idWords(['atom']));

/** An ISO 8601 date or date-time; dates without a zone are UTC. Normalised to ISO with ms. */
export const isoTime = z.string().transform((s, ctx) => {
  const iso = normaliseIsoTime(s);
  if (iso === undefined) {
    ctx.addIssue({ code: 'custom', message: WORDS.isoTime });
    return z.NEVER;
  }
  return iso;
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
