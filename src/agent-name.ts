import { BrainError } from './errors.js';

/**
 * The rules of an agent's name, in one place for the zod schema `agentName` (validation.ts) and
 * for `checkAgentName`, which applies them without loading zod: `brain poll`, run by agents'
 * hooks many times a minute, checks a name and nothing else, and zod costs more to load than
 * the poll. A test holds the two to the same answers.
 */
export const AGENT_NAME_MAX = 64;
export const AGENT_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.@-]*$/;
export const AGENT_NAME_MESSAGES = {
  empty: 'must not be empty',
  long: `must be at most ${AGENT_NAME_MAX} characters`,
  pattern: 'must be letters, digits, and _ . @ - (starting with a letter or digit)',
} as const;

/** The name, or an INVALID_INPUT BrainError worded as `parseInput(agentName, …)` words it. */
export function checkAgentName(value: unknown, field = 'agent'): string {
  const problems = agentNameProblems(value);
  if (problems.length > 0)
    throw new BrainError('INVALID_INPUT', problems.map((p) => `${field}: ${p}`).join('; '));
  return value as string;
}

/** What is wrong with the name, each problem in the schema's words; empty when nothing is. */
export function agentNameProblems(value: unknown): string[] {
  if (value === undefined) return ['is required'];
  if (typeof value !== 'string') return [`expected string, received ${typeName(value)}`];
  const problems: string[] = [];
  if (value.length < 1) problems.push(AGENT_NAME_MESSAGES.empty);
  if (value.length > AGENT_NAME_MAX) problems.push(AGENT_NAME_MESSAGES.long);
  if (!AGENT_NAME_PATTERN.test(value)) problems.push(AGENT_NAME_MESSAGES.pattern);
  return problems;
}

/** What zod calls a value of the wrong type ("number", "NaN", "null", "array", "Date" …). */
export function typeName(value: unknown): string {
  if (typeof value === 'number') return Number.isFinite(value) ? 'number' : String(value);
  if (typeof value !== 'object') return typeof value;
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const ctor = (value as { constructor?: { name?: string } }).constructor;
  return Object.getPrototypeOf(value) !== Object.prototype && ctor ? String(ctor.name) : 'object';
}
