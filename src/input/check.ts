// An input is an object of declared fields, checked here without zod: the one check of the
// library's inputs, whether a one-shot command, the MCP server or the assistant calls.
import { BrainError } from '../errors.js';
import { INVALID, WORDS, type Field, type Report } from './fields.js';

// Any field at all: a Field is covariant in what it checks to and what it takes.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyField = Field<any, any>;
export type Fields = Record<string, AnyField>;

/** The fields of one input, checked as a strict object: an unknown field is a problem. */
export interface Declaration<F extends Fields = Fields> {
  readonly fields: F;
}

type OutOf<T> = T extends { readonly _types?: { out: infer O } } ? O : never;
type InOf<T> = T extends { readonly _types?: { in: infer I } } ? I : never;
type Flatten<T> = { [K in keyof T]: T[K] };

/** The checked value: defaults applied, times normalised; absent optional fields left out. */
export type OutputOf<D extends Declaration> = Flatten<
  {
    [K in keyof D['fields'] as undefined extends OutOf<D['fields'][K]> ? never : K]: OutOf<
      D['fields'][K]
    >;
  } & {
    [K in keyof D['fields'] as undefined extends OutOf<D['fields'][K]> ? K : never]?: OutOf<
      D['fields'][K]
    >;
  }
>;

/** What a caller may pass: fields with a default or optional may be left out. */
export type InputOf<D extends Declaration> = Flatten<
  {
    [K in keyof D['fields'] as undefined extends InOf<D['fields'][K]> ? never : K]: InOf<
      D['fields'][K]
    >;
  } & {
    [K in keyof D['fields'] as undefined extends InOf<D['fields'][K]> ? K : never]?: InOf<
      D['fields'][K]
    >;
  }
>;

export function object<F extends Fields>(fields: F): Declaration<F> {
  return { fields };
}

/** The same input with only the given fields (e.g. what an MCP tool takes from its caller). */
export function pick<F extends Fields, K extends keyof F & string>(
  declaration: Declaration<F>,
  keys: readonly K[],
): Declaration<Pick<F, K>> {
  const fields = {} as Pick<F, K>;
  for (const key of keys) fields[key] = declaration.fields[key];
  return { fields };
}

/** The same input without the given fields (e.g. those an MCP tool takes from the session). */
export function omit<F extends Fields, K extends keyof F & string>(
  declaration: Declaration<F>,
  keys: readonly K[],
): Declaration<Omit<F, K>> {
  const fields = { ...declaration.fields };
  for (const key of keys) delete fields[key];
  return { fields };
}

/** The input with more fields (or fields replaced), e.g. an adapter's own switch. */
export function extend<F extends Fields, G extends Fields>(
  declaration: Declaration<F>,
  more: G,
): Declaration<Flatten<Omit<F, keyof G> & G>> {
  return { fields: { ...declaration.fields, ...more } as Flatten<Omit<F, keyof G> & G> };
}

/** How a check words its error: the fields' names for people, and what was being checked. */
export interface CheckWords {
  /** A field's name as its reader knows it (`dbPath` → "--db / BRAIN_DB"). */
  names?: Record<string, string>;
  /** Put before the problems ("configuration: …"). */
  context?: string;
}

/**
 * The input checked against its declaration: defaults applied, or an INVALID_INPUT BrainError
 * naming every problem with its field ("body: is required; priority: must be one of …").
 */
export function check<D extends Declaration>(
  declaration: D,
  input: unknown,
  words: CheckWords = {},
): OutputOf<D> {
  const problems: string[] = [];
  const value = checkObject(declaration, input, (path, problem) => {
    problems.push(`${words.names?.[path] ?? path}: ${problem}`);
  });
  if (problems.length > 0) {
    const all = problems.join('; ');
    throw new BrainError('INVALID_INPUT', words.context ? `${words.context}: ${all}` : all);
  }
  return value as OutputOf<D>;
}

function checkObject(declaration: Declaration, input: unknown, report: Report): unknown {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    report('input', WORDS.expected('object', input));
    return INVALID;
  }
  const given = input as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(declaration.fields)) {
    const value = Object.hasOwn(given, key) ? given[key] : undefined;
    if (value === undefined) {
      if (field.presence === 'default') out[key] = field.fallback!();
      else if (field.presence === 'required') report(key, 'is required');
    } else if (value === null && field.allowsNull) {
      out[key] = null;
    } else {
      const checked: unknown = field.parse(value, key, report);
      if (checked !== INVALID) out[key] = checked;
    }
  }
  const unknown = Object.keys(given).filter((key) => !Object.hasOwn(declaration.fields, key));
  if (unknown.length > 0) report('input', `unknown field(s) ${unknown.join(', ')}`);
  return out;
}
