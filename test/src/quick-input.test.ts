import { describe, expect, it } from 'vitest';
import { BrainError } from '../../src/errors.js';
import { parseProvenanceInput } from '../../src/knowledge/provenance.js';
import { parseInboxInput } from '../../src/messaging/inbox.js';
import { parseSendInput } from '../../src/messaging/messages.js';
import { parseHistoryInput } from '../../src/messaging/threads.js';
import {
  quickHistoryArgs,
  quickInboxArgs,
  quickProvenanceArgs,
  quickSendArgs,
} from '../../src/quick-input.js';

/** The schema's answer: the checked value, or the error's message. */
function answer(parse: (input: never) => unknown, input: unknown) {
  try {
    return { value: parse(input as never) };
  } catch (err) {
    if (!(err instanceof BrainError)) throw err;
    return { error: err.message };
  }
}

/** Every combination of the given values of each field (undefined meaning the key is absent). */
function combinations(fields: Record<string, unknown[]>): Record<string, unknown>[] {
  let out: Record<string, unknown>[] = [{}];
  for (const [key, values] of Object.entries(fields)) {
    out = out.flatMap((partial) =>
      values.map((v) => (v === ABSENT ? partial : { ...partial, [key]: v })),
    );
  }
  return out;
}
const ABSENT = Symbol('absent');

/** Whatever the quick check accepts, the schema accepts with the same value; how many it took. */
function holdToSchema(
  quick: (input: unknown) => unknown,
  parse: (input: never) => unknown,
  inputs: unknown[],
): number {
  let accepted = 0;
  for (const input of inputs) {
    const value = quick(input);
    if (value === undefined) continue; // deferred to the schema: its words stand
    accepted += 1;
    expect({ input, answer: answer(parse, input) }).toEqual({ input, answer: { value } });
  }
  return accepted;
}

const oddValues = [null, 42, true, [], {}, '', ' ', 'a\0b', 'lone \ud800'];
const counts = [
  ABSENT,
  undefined,
  '0',
  '1',
  '2',
  '50',
  '1000',
  '1001',
  '05',
  ' 5',
  '5.0',
  '1e2',
  '-1',
  'ten',
  '',
  0,
  3,
  1000,
  1001,
  -1,
  2.5,
  -0,
  Number.NaN,
  Number.MAX_SAFE_INTEGER + 1,
  true,
];
const THREAD = 'thr_0a1b2c3d-0000-4000-8000-0123456789ab';
const MESSAGE = 'syn_0123456789ab';
const notObjects = [null, undefined, 'x', 7, ['agent']];

describe('the quick checks of the one-shot commands’ input', () => {
  it('accept for a send only what the schema accepts, checked to the same value', () => {
    const names = [
      ABSENT,
      'nova',
      'a'.repeat(64),
      'a'.repeat(65),
      'Not A Name!',
      '-x',
      ...oddValues,
    ];
    const inputs: unknown[] = [...notObjects];
    inputs.push(
      ...combinations({
        from: ['nova', ...names.slice(2)],
        to: [...names, undefined],
        body: ['hello', '  padded  '],
      }),
      ...combinations({
        from: ['nova'],
        body: ['hello', ...oddValues, 'x'.repeat(5000)],
        subject: [ABSENT, undefined, 'plans', 's'.repeat(500), 's'.repeat(501), ...oddValues],
      }),
      ...combinations({
        from: ['nova'],
        body: ['hello'],
        priority: [ABSENT, undefined, 'info', 'normal', 'action', 'urgent', 'URGENT', 'high', 1],
        thread: [ABSENT, undefined, THREAD, 'thr_nope', MESSAGE, 3],
        reply_to: [ABSENT, undefined, MESSAGE, 'syn_XYZ', THREAD],
      }),
      ...combinations({
        from: ['nova'],
        body: ['hello'],
        metadata: [
          ABSENT,
          undefined,
          { k: 1 },
          { nested: { a: [1, 2] } },
          JSON.parse('{"__proto__": {"x": 1}}'),
          [],
          null,
          'text',
          new Date(0),
        ],
        tags: [
          ABSENT,
          undefined,
          ['a'],
          ['a', 'b'],
          [],
          [''],
          ['t'.repeat(64)],
          ['t'.repeat(65)],
          Array.from({ length: 32 }, (_, i) => `t${i}`),
          Array.from({ length: 33 }, (_, i) => `t${i}`),
          [1],
          'a,b',
        ],
      }),
      { from: 'nova', body: 'hello', at: '2026-01-01' },
      { from: 'nova', body: 'hello', colour: 'blue' },
    );
    expect(holdToSchema(quickSendArgs, parseSendInput, inputs)).toBeGreaterThan(100);
  });

  it('accept for an inbox read only what the schema accepts, checked to the same value', () => {
    const inputs: unknown[] = [...notObjects, { agent: 'nova', limit: '5', extra: 1 }];
    inputs.push(...combinations({ agent: ['nova', 'a'.repeat(65), ...oddValues], limit: counts }));
    expect(holdToSchema(quickInboxArgs, parseInboxInput, inputs)).toBeGreaterThan(5);
  });

  it('accept for a thread only what the schema accepts, checked to the same value', () => {
    const inputs: unknown[] = [...notObjects, { thread_id: THREAD, colour: 'blue' }];
    inputs.push(
      ...combinations({
        thread_id: [THREAD, THREAD.toUpperCase(), MESSAGE, ...oddValues],
        limit: counts,
        offset: [ABSENT, '0', '10', '999999999', '1000000000', '-1', ' 1', 7, -3, 1e12, 'x'],
      }),
    );
    expect(holdToSchema(quickHistoryArgs, parseHistoryInput, inputs)).toBeGreaterThan(30);
  });

  it('accept for provenance only what the schema accepts, checked to the same value', () => {
    const inputs: unknown[] = [...notObjects, { id: MESSAGE, depth: 1 }];
    inputs.push(
      ...combinations({
        id: [MESSAGE, 'stm_0123456789ab', 'atm_0123456789ab', THREAD, 'stm_XYZ', ...oddValues],
        context: [...counts, '50', '51', 50, 51],
      }),
    );
    expect(holdToSchema(quickProvenanceArgs, parseProvenanceInput, inputs)).toBeGreaterThan(20);
  });

  it('take the quick road for what the CLI passes on plain commands', () => {
    expect(
      quickSendArgs({
        from: 'nova',
        to: 'atlas',
        subject: undefined,
        body: 'hello',
        thread: THREAD,
        reply_to: undefined,
        priority: 'normal',
        metadata: undefined,
        tags: undefined,
      }),
    ).toMatchObject({ from: 'nova', to: 'atlas', body: 'hello', priority: 'normal' });
    expect(quickInboxArgs({ agent: 'atlas', limit: '50' })).toEqual({ agent: 'atlas', limit: 50 });
    expect(quickHistoryArgs({ thread_id: THREAD, limit: '50', offset: '0' })).toEqual({
      thread_id: THREAD,
      limit: 50,
      offset: 0,
    });
    expect(quickProvenanceArgs({ id: MESSAGE, context: '2' })).toEqual({ id: MESSAGE, context: 2 });
  });

  it('leave every input the schema rejects to the schema, whose message names the field', () => {
    const rejected: [(input: unknown) => unknown, (input: never) => unknown, unknown, string][] = [
      [quickSendArgs, parseSendInput, { from: 'nova', body: ' ' }, 'body:'],
      [quickSendArgs, parseSendInput, { from: 'nova', body: 'x', to: 'A B' }, 'to:'],
      [quickSendArgs, parseSendInput, { from: 'nova', body: 'x', thread: 'nope' }, 'thread:'],
      [quickSendArgs, parseSendInput, { from: 'nova', body: 'x', tags: [''] }, 'tags.0:'],
      [quickInboxArgs, parseInboxInput, { agent: 'nova', limit: '0' }, 'limit:'],
      [quickHistoryArgs, parseHistoryInput, { thread_id: THREAD, offset: '-1' }, 'offset:'],
      [quickProvenanceArgs, parseProvenanceInput, { id: THREAD }, 'id:'],
      [quickProvenanceArgs, parseProvenanceInput, { id: MESSAGE, context: '51' }, 'context:'],
    ];
    for (const [quick, parse, input, field] of rejected) {
      expect(quick(input)).toBeUndefined();
      expect(answer(parse, input)).toEqual({ error: expect.stringContaining(field) as string });
    }
  });
});
