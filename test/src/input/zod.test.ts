import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BrainError } from '../../../src/errors.js';
import { check, omit, type Declaration } from '../../../src/input/check.js';
import { toZod } from '../../../src/input/zod.js';
import { atomInput, linkInput } from '../../../src/knowledge/atoms.js';
import { provenanceInput } from '../../../src/knowledge/provenance.js';
import { rememberInput } from '../../../src/knowledge/stm.js';
import { ackInput, inboxInput } from '../../../src/messaging/inbox.js';
import { sendInput } from '../../../src/messaging/messages.js';
import { historyInput, listThreadsInput } from '../../../src/messaging/threads.js';
import { searchInput } from '../../../src/search/search.js';

const ABSENT = Symbol('absent');
const THREAD = 'thr_0a1b2c3d-0000-4000-8000-0123456789ab';
const MESSAGE = 'syn_0123456789ab';

/** Every combination of the given values of each field (ABSENT: the key is left out). */
function combinations(fields: Record<string, unknown[]>): Record<string, unknown>[] {
  let out: Record<string, unknown>[] = [{}];
  for (const [key, values] of Object.entries(fields)) {
    out = out.flatMap((partial) =>
      values.map((v) => (v === ABSENT ? partial : { ...partial, [key]: v })),
    );
  }
  return out;
}

/** The check's answer: the value, or the fields its error names. */
function checked(declaration: Declaration, input: unknown) {
  try {
    return { value: check(declaration, input) as unknown };
  } catch (err) {
    if (!(err instanceof BrainError)) throw err;
    const fields = err.message.split('; ').map((problem) => problem.split(':')[0]!);
    return { fields: [...new Set(fields)] };
  }
}

/**
 * Hold toZod(declaration, z) to the check on every input (as JSON gives them: numbers as numbers,
 * no null for a nullable field): whatever the check accepts, the zod object accepts, and its
 * output checks to the same value; whatever the zod object refuses, the check refuses, naming
 * the fields zod names. Answers how many inputs each side accepted.
 */
function holdToCheck(declaration: Declaration, inputs: unknown[]) {
  const schema = toZod(declaration, z);
  let accepted = 0;
  let refusedByZod = 0;
  for (const input of inputs) {
    const answer = checked(declaration, input);
    const parsed = schema.safeParse(input);
    if ('value' in answer) {
      accepted += 1;
      expect({ input, zod: parsed.success }).toEqual({ input, zod: true });
      expect({ input, value: check(declaration, parsed.data) }).toEqual({
        input,
        value: answer.value,
      });
    } else if (!parsed.success) {
      refusedByZod += 1;
      const zodFields = parsed.error.issues.map((i) =>
        i.path.length ? String(i.path[0]) : 'input',
      );
      for (const field of zodFields)
        expect({ input, named: answer.fields.some((f) => f.split('.')[0] === field) }).toEqual({
          input,
          named: true,
        });
    }
  }
  return { accepted, refusedByZod };
}

const names = ['nova', 'a'.repeat(64), 'a'.repeat(65), 'Not A Name!', '', 42];
const texts = ['hello', '  padded  ', '', ' ', 'a\0b', 'lone \ud800', 7, true];
const counts = [ABSENT, 0, 1, 2, 50, 200, 201, 1000, 1001, -1, 2.5, Number.NaN, 'x', null];
const notObjects = [null, 'x', 7, ['a']];

describe('toZod, the zod object of an MCP tool’s input', () => {
  it('agrees with the check on a send', () => {
    const inputs = [
      ...notObjects,
      { from: 'nova', body: 'x', sql: 'DROP' },
      ...combinations({ from: [ABSENT, ...names], to: [ABSENT, ...names], body: texts }),
      ...combinations({
        from: ['nova'],
        body: ['hello'],
        subject: [ABSENT, 'plans', 's'.repeat(501), ...texts],
        priority: [ABSENT, 'info', 'urgent', 'URGENT', 1],
        thread: [ABSENT, THREAD, 'thr_nope', MESSAGE, 3],
        reply_to: [ABSENT, MESSAGE, THREAD],
      }),
      ...combinations({
        from: ['nova'],
        body: ['hello'],
        metadata: [ABSENT, { k: 1 }, [], 'text', 3],
        tags: [ABSENT, ['a'], [], [''], ['t'.repeat(65)], [1], 'a,b'],
        at: [ABSENT, '2026-01-31', '2026-01-31T12:00:00+02:00', 'yesterday', 5],
      }),
    ];
    const { accepted, refusedByZod } = holdToCheck(sendInput, inputs);
    expect(accepted).toBeGreaterThan(50);
    expect(refusedByZod).toBeGreaterThan(50);
    // What an MCP client sends: the session's agent is the sender.
    const withoutSender = inputs.map((input) => {
      if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
      const {
        from: _from,
        metadata: _metadata,
        at: _at,
        ...rest
      } = input as Record<string, unknown>;
      return rest;
    });
    const tool = holdToCheck(omit(sendInput, ['from', 'metadata', 'at']), withoutSender);
    expect(tool.accepted).toBeGreaterThan(10);
  });

  it('agrees with the check on inbox, history, provenance, ack and thread listing', () => {
    const ids = [ABSENT, THREAD, MESSAGE, 'stm_0123456789ab', 'atm_0123456789ab', 'nope', 3];
    const tables: Array<[Declaration, unknown[]]> = [
      [inboxInput, combinations({ agent: [ABSENT, ...names], limit: counts })],
      [historyInput, combinations({ thread_id: ids, limit: counts, offset: counts })],
      [provenanceInput, combinations({ id: ids, context: counts })],
      [ackInput, combinations({ message_id: ids, agent: ['nova', ''], body: [ABSENT, ...texts] })],
      [
        listThreadsInput,
        combinations({
          status: [ABSENT, 'active', 'closed', 'gone', 1],
          tag: [ABSENT, 'x', ...texts],
          limit: counts,
        }),
      ],
    ];
    for (const [declaration, inputs] of tables) {
      const { accepted, refusedByZod } = holdToCheck(declaration, [...notObjects, ...inputs]);
      expect(accepted).toBeGreaterThan(3);
      expect(refusedByZod).toBeGreaterThan(3);
    }
  });

  it('agrees with the check on memories, atoms and links', () => {
    const units = [ABSENT, 0, 0.5, 1, 1.5, -1, 3, Number.NaN, 'x', null];
    const tables: Array<[Declaration, unknown[]]> = [
      [
        rememberInput,
        combinations({
          agent: ['nova', ''],
          content: [ABSENT, ...texts],
          categories: [ABSENT, ['Decision'], [' '], [''], 'x'],
          importance: units,
          expires_at: [ABSENT, '2999-01-01', 'soon'],
        }),
      ],
      [
        atomInput,
        combinations({
          agent: ['nova'],
          subject: [ABSENT, 'falcon', ' ', 3],
          action: ['flew', 'a\0'],
          outcome: ['landed', ''],
          confidence: units,
        }),
      ],
      [
        linkInput,
        combinations({
          from: ['atm_0123456789ab', MESSAGE],
          to: [ABSENT, 'atm_0123456789ac', 7],
          type: [ABSENT, 'causes', 'enables', 'loves', 0],
          strength: units,
        }),
      ],
    ];
    for (const [declaration, inputs] of tables) {
      const { accepted, refusedByZod } = holdToCheck(declaration, [...notObjects, ...inputs]);
      expect(accepted).toBeGreaterThan(3);
      expect(refusedByZod).toBeGreaterThan(3);
    }
  });

  it('agrees with the check on a search', () => {
    const inputs = [
      ...notObjects,
      ...combinations({
        query: [ABSENT, 'lantern', '   ', 'x'.repeat(2001), 'a\0', 5],
        types: [ABSENT, ['message'], ['stm', 'atom'], [], ['users'], 'message'],
        limit: counts,
      }),
      ...combinations({
        query: ['lantern'],
        since: [ABSENT, '2026-01-01', 'yesterday', 5],
        until: [ABSENT, '2026-01-31', '2026-01-31T10:00:00Z', 'nope'],
        thread: [ABSENT, THREAD, 'thr_nope'],
        exclude_thread: [ABSENT, THREAD, MESSAGE],
        agent: [ABSENT, 'nova', 'Not A Name!'],
      }),
    ];
    const { accepted, refusedByZod } = holdToCheck(searchInput, inputs);
    expect(accepted).toBeGreaterThan(50);
    expect(refusedByZod).toBeGreaterThan(50);
  });

  it('leaves to the command line what JSON never sends: counts as digits, null for “none”', () => {
    const history = { thread_id: THREAD, limit: '20' };
    expect(check(historyInput, history)).toMatchObject({ limit: 20 });
    expect(toZod(historyInput, z).safeParse(history).success).toBe(false);
    const broadcast = { from: 'nova', body: 'hi', to: null };
    expect(check(sendInput, broadcast)).toMatchObject({ to: null });
    expect(toZod(sendInput, z).safeParse(broadcast).success).toBe(false);
  });

  it('carries the descriptions and defaults into the JSON schema', () => {
    const schema = toZod(searchInput, z).toJSONSchema({ io: 'input' }) as {
      properties: Record<string, { description?: string; default?: unknown }>;
      required: string[];
    };
    expect(schema.required).toEqual(['query']);
    expect(schema.properties.limit).toMatchObject({ default: 20, maximum: 200 });
    for (const [name, property] of Object.entries(schema.properties))
      expect({ name, described: Boolean(property.description) }).toEqual({
        name,
        described: true,
      });
  });
});
