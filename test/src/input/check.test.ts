import { describe, expect, it } from 'vitest';
import { BrainError } from '../../../src/errors.js';
import { check, extend, object, omit, pick } from '../../../src/input/check.js';
import {
  agentName,
  boolean,
  count,
  id,
  isoTime,
  list,
  number,
  oneOf,
  record,
  text,
} from '../../../src/input/fields.js';
import { sendInput } from '../../../src/messaging/messages.js';
import { searchInput } from '../../../src/search/search.js';

const THREAD = 'thr_0a1b2c3d-0000-4000-8000-0123456789ab';
const MESSAGE = 'syn_0123456789ab';

/** The words of the INVALID_INPUT error check throws for the input. */
function refusal(declaration: Parameters<typeof check>[0], input: unknown): string {
  try {
    check(declaration, input);
  } catch (err) {
    expect(err).toBeInstanceOf(BrainError);
    expect((err as BrainError).code).toBe('INVALID_INPUT');
    return (err as BrainError).message;
  }
  throw new Error(`accepted ${JSON.stringify(input)}`);
}

describe('check', () => {
  it('gives the checked value: defaults applied, absent optional fields left out', () => {
    expect(check(sendInput, { from: 'nova', body: 'hi', to: undefined })).toEqual({
      from: 'nova',
      body: 'hi',
      priority: 'normal',
    });
    const all = check(searchInput, {
      query: 'lantern',
      limit: '5',
      since: '2026-01-31 10:00',
      until: '2026-01-31',
      thread: THREAD,
    });
    expect(all).toEqual({
      query: 'lantern',
      types: ['message', 'stm', 'atom'],
      limit: 5,
      since: '2026-01-31T10:00:00.000Z',
      until: '2026-02-01T00:00:00.000Z',
      thread: THREAD,
      exclude_archived: false,
    });
  });

  it('gives each absent list its own copy of the default', () => {
    const first = check(searchInput, { query: 'a' });
    first.types.pop();
    expect(check(searchInput, { query: 'b' }).types).toEqual(['message', 'stm', 'atom']);
  });

  it('names every bad field, in declaration order, then the unknown ones', () => {
    expect(refusal(sendInput, { from: 5, body: 6, priority: 'x', sql: 1, zz: 2 })).toBe(
      'from: expected string, received number; body: expected string, received number; ' +
        'priority: must be one of info, normal, action, urgent; input: unknown field(s) sql, zz',
    );
    expect(refusal(sendInput, {})).toBe('from: is required; body: is required');
  });

  it('refuses what is not an object, saying what it is', () => {
    for (const [input, what] of [
      [null, 'null'],
      ['x', 'string'],
      [['x'], 'array'],
      [7, 'number'],
      [undefined, 'undefined'],
    ] as const)
      expect(refusal(sendInput, input)).toBe(`input: expected object, received ${what}`);
  });

  it('reads only the input’s own fields', () => {
    const inherited = Object.create({ from: 'nova', body: 'hi' }) as object;
    expect(refusal(sendInput, inherited)).toBe('from: is required; body: is required');
  });

  it('words text problems as the library always has', () => {
    const d = object({ t: text(5) });
    expect(refusal(d, { t: 'abcdef' })).toBe('t: must be at most 5 characters');
    expect(refusal(d, { t: 'a\0b' })).toBe('t: must not contain NUL characters');
    expect(refusal(d, { t: 'a\ud800' })).toBe('t: must be valid Unicode (no lone surrogates)');
    expect(refusal(d, { t: 'abcde\0' })).toBe(
      't: must be at most 5 characters; t: must not contain NUL characters',
    );
    expect(refusal(object({ t: text(5, { min: 1 }) }), { t: '' })).toBe('t: must not be empty');
    expect(refusal(sendInput, { from: 'a', body: '  ' })).toBe('body: must not be empty');
  });

  it('checks agent names, ids and times with their own words', () => {
    const d = object({
      agent: agentName().optional(),
      thread: id('thread').optional(),
      message: id('message').optional(),
      any: id('message', 'stm', 'atom').optional(),
      at: isoTime().optional(),
    });
    expect(refusal(d, { agent: '' })).toBe(
      'agent: must not be empty; agent: must be letters, digits, and _ . @ - (starting with a letter or digit)',
    );
    expect(refusal(d, { thread: MESSAGE })).toBe('thread: must be a thread id like thr_<uuid>');
    expect(refusal(d, { message: THREAD })).toBe(
      'message: must be a message id like syn_0123456789ab',
    );
    expect(refusal(d, { any: THREAD })).toBe(
      'any: must be a message, STM or atom id (syn_…, stm_…, atm_…)',
    );
    expect(refusal(d, { at: 'yesterday' })).toBe(
      'at: must be an ISO 8601 date such as 2026-01-31 or 2026-01-31T12:00:00Z',
    );
    expect(check(d, { at: '2026-01-31T12:00:00+02:00' })).toEqual({
      at: '2026-01-31T10:00:00.000Z',
    });
  });

  it('takes a count as a number or a string of digits, and nothing that only looks like one', () => {
    const d = object({ n: count(1, 1000).default(50) });
    expect(check(d, {})).toEqual({ n: 50 });
    expect(check(d, { n: 7 })).toEqual({ n: 7 });
    expect(check(d, { n: '1000' })).toEqual({ n: 1000 });
    for (const bad of [0, 1001, 2.5, '0', ' 5', '1e2', '5.0', '-1', '', 'ten', Number.NaN])
      expect(refusal(d, { n: bad })).toBe('n: must be a whole number from 1 to 1000');
    for (const [bad, what] of [
      [true, 'boolean'],
      [null, 'null'],
      [[], 'array'],
    ] as const)
      expect(refusal(d, { n: bad })).toBe(`n: expected number, received ${what}`);
    expect(refusal(object({ n: count(0) }), { n: -1 })).toBe(
      'n: must be a whole number of at least 0',
    );
  });

  it('takes a bounded number as a number or a decimal, in the words it is given', () => {
    const d = object({ x: number(0, 1, 'must be between 0 and 1').default(0.5) });
    expect(check(d, {})).toEqual({ x: 0.5 });
    expect(check(d, { x: '0.25' })).toEqual({ x: 0.25 });
    expect(check(d, { x: '.5' })).toEqual({ x: 0.5 });
    for (const bad of [1.5, -0.1, '2', '1e-1', 'half', '', Number.NaN, Infinity])
      expect(refusal(d, { x: bad })).toBe('x: must be between 0 and 1');
    expect(refusal(d, { x: false })).toBe('x: expected number, received boolean');
  });

  it('makes a checked value over, and checks what it makes', () => {
    const d = object({
      c: text(64, { min: 1 })
        .map((s) => s.trim().toLowerCase())
        .refine((s) => s.length > 0, 'must not be blank'),
    });
    expect(check(d, { c: ' Decision ' })).toEqual({ c: 'decision' });
    expect(refusal(d, { c: '   ' })).toBe('c: must not be blank');
    expect(refusal(d, { c: '' })).toBe('c: must not be empty');
  });

  it('checks each item of a list, naming it, and the list’s length', () => {
    expect(refusal(sendInput, { from: 'a', body: 'x', tags: ['ok', ''] })).toBe(
      'tags.1: must not be empty',
    );
    const tags = Array.from({ length: 33 }, (_, i) => `t${i}`);
    expect(refusal(sendInput, { from: 'a', body: 'x', tags })).toBe(
      'tags: must have at most 32 items',
    );
    expect(refusal(searchInput, { query: 'x', types: [] })).toBe(
      'types: must name at least one type',
    );
    expect(refusal(searchInput, { query: 'x', types: ['message', 'users'] })).toBe(
      'types.1: must be one of message, stm, atom',
    );
    expect(refusal(object({ l: list(boolean()) }), { l: 'a,b' })).toBe(
      'l: expected array, received string',
    );
  });

  it('takes null only where the field allows it', () => {
    expect(check(sendInput, { from: 'a', body: 'x', to: null })).toMatchObject({ to: null });
    expect(refusal(sendInput, { from: 'a', body: 'x', subject: null })).toBe(
      'subject: expected string, received null',
    );
  });

  it('takes as a record only a plain object', () => {
    const d = object({ m: record() });
    expect(check(d, { m: { a: [1] } })).toEqual({ m: { a: [1] } });
    for (const [bad, what] of [
      [[], 'array'],
      [new Date(0), 'Date'],
      ['x', 'string'],
    ] as const)
      expect(refusal(d, { m: bad })).toBe(`m: expected record, received ${what}`);
  });

  it('applies a refinement only to a value that passed the rest', () => {
    const d = object({ w: oneOf(['a', 'b']).refine((v) => v === 'a', 'must be a') });
    expect(check(d, { w: 'a' })).toEqual({ w: 'a' });
    expect(refusal(d, { w: 'b' })).toBe('w: must be a');
    expect(refusal(d, { w: 'c' })).toBe('w: must be one of a, b');
  });
});

describe('pick, omit and extend', () => {
  it('derive a narrower or wider input from one declaration', () => {
    const toolSend = omit(sendInput, ['from', 'metadata', 'at']);
    expect(Object.keys(toolSend.fields)).not.toContain('from');
    expect(refusal(toolSend, { body: 'x', from: 'nova' })).toBe('input: unknown field(s) from');
    expect(check(toolSend, { body: 'x' })).toEqual({ body: 'x', priority: 'normal' });

    const limitOnly = extend(pick(searchInput, ['limit']), { peek: boolean().default(false) });
    expect(check(limitOnly, {})).toEqual({ limit: 20, peek: false });
    expect(refusal(limitOnly, { limit: 201, peek: 'yes' })).toBe(
      'limit: must be a whole number from 1 to 200; peek: expected boolean, received string',
    );
    // The declaration derived from is left as it was.
    expect(Object.keys(searchInput.fields)).toContain('query');
  });
});
