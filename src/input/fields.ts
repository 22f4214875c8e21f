// The fields an input is declared with. One declaration gives the check every caller runs
// (check.ts, no zod, so a one-shot command can load it) and the zod schema of an MCP tool
// (zod.ts). The words of each problem are the ones callers and tests know.
import { agentNameProblems, typeName } from '../agent-name.js';

export { typeName };
import { BrainError } from '../errors.js';
import { ID_PATTERNS, type IdKind } from '../ids.js';

/** The JSON shape of a field: what a tool's input schema says of it (zod.ts). */
export type Shape =
  | { type: 'string' }
  | { type: 'integer'; min: number; max: number }
  | { type: 'number'; min: number; max: number }
  | { type: 'boolean' }
  | { type: 'enum'; values: readonly [string, ...string[]] }
  | { type: 'array'; of: Field<unknown> }
  | { type: 'record' };

/** Where a problem is reported: the field's path ("tags.0") and the words. */
export type Report = (path: string, words: string) => void;

/** A value that failed its check; the reasons went to the report. */
export const INVALID: unique symbol = Symbol('invalid');

export interface Field<Out, In = Out> {
  readonly shape: Shape;
  readonly description: string | undefined;
  /** What an absent (undefined) value means. */
  readonly presence: 'required' | 'optional' | 'default';
  /** The value an absent field takes, when presence is 'default'. */
  readonly fallback: (() => Out) | undefined;
  readonly allowsNull: boolean;
  /** Check a present value: its checked form, or INVALID once each problem is reported. */
  parse(value: unknown, path: string, report: Report): Out | typeof INVALID;
  optional(): Field<Out | undefined, In | undefined>;
  nullable(): Field<Out | null, In | null>;
  nullish(): Field<Out | null | undefined, In | null | undefined>;
  default(value: Out): Field<Out, In | undefined>;
  describe(text: string): Field<Out, In>;
  /** A further rule on a value that passed the rest; `words` when it does not hold. */
  refine(ok: (value: Out) => boolean, words: string): Field<Out, In>;
  /** The checked value made over (e.g. trimmed); rules given after see what it makes. */
  map<T>(make: (value: Out) => T): Field<T, In>;
  /** The types of what a caller passes and what the check gives; never set (for inference). */
  readonly _types?: { in: In; out: Out };
}

interface Spec<Out> {
  shape: Shape;
  parse(value: unknown, path: string, report: Report): Out | typeof INVALID;
}

interface State<Out> extends Spec<Out> {
  description: string | undefined;
  presence: Field<Out>['presence'];
  fallback: (() => Out) | undefined;
  allowsNull: boolean;
}

/** A required, non-null field from its shape and its check of a present value. */
export function field<Out, In = Out>(spec: Spec<Out>): Field<Out, In> {
  return build({
    ...spec,
    description: undefined,
    presence: 'required',
    fallback: undefined,
    allowsNull: false,
  });
}

function build<Out, In>(s: State<Out>): Field<Out, In> {
  // The builders narrow Out and In; the state is the same object either way.
  const next = <O, I>(changes: Partial<State<Out>>) =>
    build<O, I>({ ...s, ...changes } as unknown as State<O>);
  return {
    shape: s.shape,
    description: s.description,
    presence: s.presence,
    fallback: s.fallback,
    allowsNull: s.allowsNull,
    parse: s.parse,
    optional: () => next({ presence: 'optional', fallback: undefined }),
    nullable: () => next({ allowsNull: true }),
    nullish: () => next({ presence: 'optional', fallback: undefined, allowsNull: true }),
    default: (value) =>
      next({
        presence: 'default',
        // Each absent field gets its own copy: a caller may change what it is given.
        fallback: Array.isArray(value) ? () => [...value] as Out : () => value,
      }),
    describe: (text) => next({ description: text }),
    refine: (ok, words) =>
      next({
        parse: (value, path, report) => {
          const checked = s.parse(value, path, report);
          if (checked === INVALID) return INVALID;
          if (ok(checked)) return checked;
          report(path, words);
          return INVALID;
        },
      }),
    map: (make) =>
      next({
        parse: (value, path, report) => {
          const checked = s.parse(value, path, report);
          return checked === INVALID ? INVALID : (make(checked) as never);
        },
      }),
  };
}

/** The words of the common problems, shared with the zod builders of validation.ts. */
export const WORDS = {
  nul: 'must not contain NUL characters',
  unicode: 'must be valid Unicode (no lone surrogates)',
  empty: 'must not be empty',
  isoTime: 'must be an ISO 8601 date such as 2026-01-31 or 2026-01-31T12:00:00Z',
  tooLong: (max: number) => `must be at most ${max} characters`,
  oneOf: (values: readonly unknown[]) => `must be one of ${values.map(String).join(', ')}`,
  expected: (type: string, value: unknown) => `expected ${type}, received ${typeName(value)}`,
} as const;

const ID_NAMES: Record<IdKind, [name: string, example: string]> = {
  message: ['message', 'syn_0123456789ab'],
  thread: ['thread', 'thr_<uuid>'],
  stm: ['STM', 'stm_0123456789ab'],
  atom: ['atom', 'atm_0123456789ab'],
};

/** "must be a thread id like thr_<uuid>"; "must be a message, STM or atom id (syn_…, stm_…, atm_…)". */
export function idWords(kinds: readonly IdKind[]): string {
  if (kinds.length === 1) {
    const [name, example] = ID_NAMES[kinds[0]!];
    const article = /^[aeiouAEIOU]|^STM/.test(name) ? 'an' : 'a';
    return `must be ${article} ${name} id like ${example}`;
  }
  const names = kinds.map((k) => ID_NAMES[k][0]);
  const list = `${names.slice(0, -1).join(', ')} or ${names.at(-1)!}`;
  const prefixes = kinds.map((k) => `${ID_NAMES[k][1].slice(0, 4)}…`).join(', ');
  return `must be a ${list} id (${prefixes})`;
}

/** Whether the value is a string; if not, reports what it is instead. */
function isString(value: unknown, path: string, report: Report): value is string {
  if (typeof value === 'string') return true;
  report(path, WORDS.expected('string', value));
  return false;
}

/** Text that SQLite and FTS5 store faithfully: no NUL characters, no lone surrogates. */
export function text(max: number, options: { min?: number } = {}): Field<string> {
  const min = options.min ?? 0;
  return field({
    shape: { type: 'string' },
    parse(value, path, report) {
      if (!isString(value, path, report)) return INVALID;
      let ok = true;
      const fail = (words: string) => {
        report(path, words);
        ok = false;
      };
      if (value.length < min) fail(min === 1 ? WORDS.empty : `must be at least ${min} characters`);
      if (value.length > max) fail(WORDS.tooLong(max));
      if (value.includes('\0')) fail(WORDS.nul);
      if (!value.isWellFormed()) fail(WORDS.unicode);
      return ok ? value : INVALID;
    },
  });
}

/** An agent's name (agent-name.ts holds its rules and words). */
export function agentName(): Field<string> {
  return field({
    shape: { type: 'string' },
    parse(value, path, report) {
      const problems = agentNameProblems(value);
      for (const words of problems) report(path, words);
      return problems.length === 0 ? (value as string) : INVALID;
    },
  });
}

/** The id of one of the given kinds (ids.ts holds the patterns). */
export function id(...kinds: [IdKind, ...IdKind[]]): Field<string> {
  const words = idWords(kinds);
  return field({
    shape: { type: 'string' },
    parse(value, path, report) {
      if (!isString(value, path, report)) return INVALID;
      if (kinds.some((kind) => ID_PATTERNS[kind].test(value))) return value;
      report(path, words);
      return INVALID;
    },
  });
}

/**
 * A whole number from `min` to `max`: a number, or a string of digits as a command line passes
 * it ("50"). Nothing that only looks like one (" 5", "1e2", "5.0", true) is taken for it.
 */
export function count(
  min: number,
  max: number = Number.MAX_SAFE_INTEGER,
): Field<number, number | string> {
  const words =
    max === Number.MAX_SAFE_INTEGER
      ? `must be a whole number of at least ${min}`
      : `must be a whole number from ${min} to ${max}`;
  // "-0" is no count: 0 it is.
  return numeric({ type: 'integer', min, max }, /^[0-9]{1,16}$/, words, (n) =>
    Number.isSafeInteger(n) ? n + 0 : Number.NaN,
  );
}

/**
 * A number from `min` to `max` (`words` otherwise): a number, or a decimal as a command line
 * passes it ("1.5").
 */
export function number(min: number, max: number, words: string): Field<number, number | string> {
  return numeric(
    { type: 'number', min, max },
    /^-?([0-9]{1,16}(\.[0-9]{1,16})?|\.[0-9]{1,16})$/,
    words,
    (n) => n,
  );
}

/**
 * A number within the shape's bounds: a number, or a string the pattern accepts (what a command
 * line passes). `kept` turns a number into the value kept, or NaN for one that does not count.
 */
function numeric(
  shape: { type: 'integer' | 'number'; min: number; max: number },
  pattern: RegExp,
  words: string,
  kept: (n: number) => number,
): Field<number, number | string> {
  return field({
    shape,
    parse(value, path, report) {
      const n = kept(
        typeof value === 'number'
          ? value
          : typeof value === 'string' && pattern.test(value)
            ? Number(value)
            : Number.NaN,
      );
      if (n >= shape.min && n <= shape.max) return n;
      report(
        path,
        typeof value === 'number' || typeof value === 'string'
          ? words
          : WORDS.expected('number', value),
      );
      return INVALID;
    },
  });
}

/** An absolute URL in printable ASCII (no spaces): what `new URL` takes as it is. */
export function url(words: string): Field<string> {
  return field({
    shape: { type: 'string' },
    parse(value, path, report) {
      if (!isString(value, path, report)) return INVALID;
      if (/^[!-~]+$/.test(value) && URL.canParse(value)) return value;
      report(path, words);
      return INVALID;
    },
  });
}

/** One of a fixed list of words. */
export function oneOf<const V extends readonly [string, ...string[]]>(values: V): Field<V[number]> {
  const words = WORDS.oneOf(values);
  return field({
    shape: { type: 'enum', values },
    parse(value, path, report) {
      if ((values as readonly unknown[]).includes(value)) return value as V[number];
      report(path, words);
      return INVALID;
    },
  });
}

export function boolean(): Field<boolean> {
  return field({
    shape: { type: 'boolean' },
    parse(value, path, report) {
      if (typeof value === 'boolean') return value;
      report(path, WORDS.expected('boolean', value));
      return INVALID;
    },
  });
}

/** A list of values of one field; each problem names its item ("tags.0"). */
export function list<Out, In>(
  of: Field<Out, In>,
  options: { min?: number; max?: number; minWords?: string } = {},
): Field<Out[], In[]> {
  const { min = 0, max = Number.MAX_SAFE_INTEGER } = options;
  return field({
    shape: { type: 'array', of: of as Field<unknown> },
    parse(value, path, report) {
      if (!Array.isArray(value)) {
        report(path, WORDS.expected('array', value));
        return INVALID;
      }
      let ok = true;
      const out: Out[] = [];
      value.forEach((item: unknown, i) => {
        const checked = of.parse(item, `${path}.${i}`, report);
        if (checked === INVALID) ok = false;
        else out.push(checked);
      });
      if (value.length < min) {
        report(path, options.minWords ?? `must have at least ${min} items`);
        ok = false;
      }
      if (value.length > max) {
        report(path, `must have at most ${max} items`);
        ok = false;
      }
      return ok ? out : INVALID;
    },
  });
}

/** A JSON object of anything (metadata): a plain object, as JSON.parse makes one. */
export function record(): Field<Record<string, unknown>> {
  return field({
    shape: { type: 'record' },
    parse(value, path, report) {
      const proto = typeof value === 'object' && value !== null && Object.getPrototypeOf(value);
      if (proto === Object.prototype || proto === null) return value as Record<string, unknown>;
      report(path, WORDS.expected('record', value));
      return INVALID;
    },
  });
}

/**
 * An ISO 8601 date or date-time, normalised to ISO with ms; dates without a zone are UTC. With
 * `wholeDay`, a bare date stands for the end of that day (an `until` that includes the day).
 */
export function isoTime(options: { wholeDay?: boolean } = {}): Field<string> {
  return field({
    shape: { type: 'string' },
    parse(value, path, report) {
      if (!isString(value, path, report)) return INVALID;
      const iso = normaliseIsoTime(value);
      if (iso === undefined) {
        report(path, WORDS.isoTime);
        return INVALID;
      }
      return options.wholeDay && /^\d{4}-\d{2}-\d{2}$/.test(value.trim())
        ? new Date(Date.parse(iso) + 86_400_000).toISOString()
        : iso;
    },
  });
}

/** The time as ISO 8601 with ms, or undefined for text that is no ISO date or date-time. */
export function normaliseIsoTime(s: string): string | undefined {
  const trimmed = s.trim();
  const ok = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(
    trimmed,
  );
  if (!ok) return undefined;
  const withZone = /^\d{4}-\d{2}-\d{2}$/.test(trimmed)
    ? `${trimmed}T00:00:00Z`
    : /(Z|[+-]\d{2}:?\d{2})$/.test(trimmed)
      ? trimmed
      : `${trimmed}Z`;
  const d = new Date(withZone.replace(' ', 'T'));
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

/** Lookups by id take any string (an unknown id is simply absent), but nothing else. */
export function lookupKey(value: unknown, path: string): string {
  if (typeof value === 'string') return value;
  throw new BrainError('INVALID_INPUT', `${path}: must be a string`);
}
