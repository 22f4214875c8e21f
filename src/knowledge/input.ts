// The knowledge section's inputs, declared once: the section checks them with the input kit,
// and MCP derives its tool schemas from them. Apart from the code, so that the library's face can
// offer them without loading it.
import { object, type InputOf, type OutputOf } from '../input/check.js';
import {
  WORDS,
  agentName,
  boolean,
  count,
  id,
  isoTime,
  list,
  number,
  oneOf,
  text,
} from '../input/fields.js';
import { LINK_TYPES } from '../vocabulary.js';

const category = () =>
  text(64, { min: 1 })
    .map((s) => s.trim().toLowerCase())
    .refine((s) => s.length > 0, 'must not be blank');

/**
 * An event time as a person or a model says it, for adapters that read it with the time reader
 * (readTimeBound('occurred_at', …)) before the library's ISO 8601 check.
 */
export const occurredAsSaid = () =>
  text(200, { min: 1 }).describe('When it happened (ISO 8601 or "last Tuesday")');

export const rememberInput = object({
  agent: agentName().describe('Whose memory'),
  content: text(100_000)
    .refine((s) => s.trim().length > 0, WORDS.empty)
    .describe('What to remember'),
  categories: list(category(), { max: 32 }).default([]).describe('Categories, e.g. ["decision"]'),
  importance: number(1, 3, 'must be between 1.0 and 3.0').default(1).describe('1.0 to 3.0'),
  expires_at: isoTime().optional().describe('ISO 8601 time when it lapses'),
  occurred_at: isoTime().optional().describe('When what it says happened (ISO 8601)'),
  source_message_id: id('message').optional().describe('The message it came from (syn_…)'),
  /** For importers and replays. */
  at: isoTime().optional().describe('When it was learned (ISO 8601); default now'),
});
export type RememberInput = InputOf<typeof rememberInput>;

export const listStmInput = object({
  agent: agentName().optional(),
  category: category().optional(),
  include_expired: boolean().default(false),
  limit: count(1, 1000).default(50),
});
export type ListStmInput = InputOf<typeof listStmInput>;

const part = (name: string) =>
  text(10_000).refine((s) => s.trim().length > 0, `${name} must not be empty`);
const unit = (words: string) =>
  number(0, 1, 'must be between 0 and 1').default(0.5).describe(words);

export const atomInput = object({
  agent: agentName().describe('Whose knowledge'),
  subject: part('subject').describe('What it is about'),
  action: part('action').describe('What was done'),
  outcome: part('outcome').describe('What happened'),
  consequences: text(10_000).default('').describe('What follows from it'),
  confidence: unit('0 to 1'),
  occurred_at: isoTime().optional().describe('When what it says happened (ISO 8601)'),
  source_message_id: id('message').optional().describe('The message it came from (syn_…)'),
  /** For importers and replays. */
  at: isoTime().optional().describe('When it was learned (ISO 8601); default now'),
});
export type AtomInput = InputOf<typeof atomInput>;

export const linkInput = object({
  from: id('atom').describe('Atom (atm_…)'),
  to: id('atom').describe('Atom (atm_…)'),
  type: oneOf(LINK_TYPES).default('causes').describe('How the first bears on the second'),
  strength: unit('0 to 1'),
});
export type LinkInput = InputOf<typeof linkInput>;

export const chainInput = object({
  atom_id: id('atom'),
  direction: oneOf(['forward', 'backward', 'both']).default('both'),
  depth: count(1, 10).default(3),
});
export type ChainInput = InputOf<typeof chainInput>;

export const provenanceInput = object({
  id: id('message', 'stm', 'atom').describe('stm_…, atm_… or syn_…'),
  context: count(0, 50).default(2).describe('Messages either side'),
});
export type ProvenanceInput = InputOf<typeof provenanceInput>;
/** A provenance request once checked: a message, STM or atom id, and the context wanted. */
export type ProvenanceArgs = OutputOf<typeof provenanceInput>;

export const insightsInput = object({
  thread_id: id('thread').optional().describe('This thread only'),
  since: isoTime().optional().describe('Learned since (ISO 8601)'),
  category: category().optional().describe('e.g. decision'),
  include_superseded: boolean().default(false).describe('Also superseded or lapsed entries'),
  limit: count(1, 1000).default(50).describe('Most to return'),
});
export type InsightsInput = InputOf<typeof insightsInput>;

/** The parts of an extraction pass a person chooses (`brain extract`). */
export const extractInput = object({
  since: isoTime().optional().describe('Read the messages sent since then (ISO 8601)'),
  limit: count(1, 100_000_000).optional().describe('Stop after this many messages'),
});
export type ExtractInput = InputOf<typeof extractInput>;
