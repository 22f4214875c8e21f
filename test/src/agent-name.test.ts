import { describe, expect, it } from 'vitest';
import { checkAgentName } from '../../src/agent-name.js';
import { agentName, parseInput } from '../../src/validation.js';

/** The message of what `fn` throws, or undefined when it returns. */
function problem(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

describe('checkAgentName', () => {
  const values: unknown[] = [
    'nova',
    'a',
    'x'.repeat(64),
    'agent.one@host-2_b',
    '9lives',
    '',
    ' nova',
    'no spaces',
    '-dash',
    '.dot',
    'é',
    'x'.repeat(65),
    `${'x'.repeat(64)}!`,
    undefined,
    null,
    42,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    true,
    ['nova'],
    { name: 'nova' },
    new Date(0),
    Object.create(null),
    10n,
  ];

  it('accepts and refuses exactly what the agentName schema does, in the same words', () => {
    for (const value of values) {
      const expected = problem(() => parseInput(agentName, value, { '': 'agent' }));
      expect([value, problem(() => checkAgentName(value))]).toEqual([value, expected]);
    }
  });

  it('refuses an invalid name with INVALID_INPUT naming the field', () => {
    expect(() => checkAgentName('no spaces', 'to')).toThrow(
      expect.objectContaining({ code: 'INVALID_INPUT', message: expect.stringMatching(/^to: /) }),
    );
  });
});
