import { describe, expect, it } from 'vitest';
import { BrainError } from '../../src/errors.js';
import { quickSearchArgs } from '../../src/search/quick-input.js';
import { parseSearchInput } from '../../src/search/search.js';

/** The schema's answer: the checked value, or the error's message. */
function schema(input: unknown): { value: unknown } | { error: string } {
  try {
    return { value: parseSearchInput(input as never) };
  } catch (err) {
    if (!(err instanceof BrainError)) throw err;
    return { error: err.message };
  }
}

const queries: unknown[] = [
  'pottery class',
  '  lantern ',
  'what did nova say about "the plan" -x OR (y)',
  'ünïcödé 你好',
  '',
  '   ',
  'a\0b',
  'lone \ud800 surrogate',
  'x'.repeat(2000),
  'x'.repeat(2001),
  42,
  null,
  undefined,
  ['pottery'],
];
const types: unknown[] = [
  undefined,
  ['message'],
  ['stm', 'atom'],
  ['message', 'message'],
  [],
  ['messages'],
  'message',
  [1],
];
const limits: unknown[] = [
  undefined,
  '20',
  '1',
  '200',
  '201',
  '0',
  '020',
  ' 5',
  '5.0',
  '1e2',
  'ten',
  '',
  7,
  7.5,
  -1,
  0,
  200,
  201,
  Number.NaN,
  true,
];
const extras: Record<string, unknown>[] = [
  {},
  { since: '2026-01-01' },
  { until: '2026-01-31' },
  { since: 'yesterday' },
  { thread: 'thr_00000000-0000-0000-0000-000000000000' },
  { thread: 'nope' },
  { agent: 'nova' },
  { agent: 'Not A Name!' },
  { since: undefined, until: undefined, thread: undefined, agent: undefined },
  { colour: 'blue' },
];

const inputs: unknown[] = [null, 'pottery', ['query'], 7];
for (const query of queries)
  for (const t of types) for (const limit of limits) inputs.push({ query, types: t, limit });
for (const extra of extras) inputs.push({ query: 'pottery class', ...extra });

describe('the quick check of search input', () => {
  it('accepts only what the schema accepts, and checks it to the same value', () => {
    let accepted = 0;
    for (const input of inputs) {
      const quick = quickSearchArgs(input);
      if (quick === undefined) continue; // deferred to the schema: its words stand
      accepted += 1;
      expect({ input, answer: schema(input) }).toEqual({ input, answer: { value: quick } });
    }
    // Most plain inputs take the quick road; otherwise it saves nothing.
    expect(accepted).toBeGreaterThan(100);
  });

  it('takes the quick road for what the CLI passes on a plain search', () => {
    const input = {
      query: 'pottery class',
      types: undefined,
      limit: '20',
      since: undefined,
      until: undefined,
      thread: undefined,
      agent: undefined,
    };
    expect(quickSearchArgs(input)).toEqual({
      query: 'pottery class',
      types: ['message', 'stm', 'atom'],
      limit: 20,
    });
  });

  it('leaves filters, odd limits and bad queries to the schema', () => {
    for (const input of [
      { query: 'pottery', since: '2026-01-01' },
      { query: 'pottery', agent: 'nova' },
      { query: 'pottery', limit: '020' },
      { query: 'pottery', limit: '201' },
      { query: '   ' },
      { query: 'pottery', colour: 'blue' },
    ])
      expect(quickSearchArgs(input)).toBeUndefined();
  });
});
