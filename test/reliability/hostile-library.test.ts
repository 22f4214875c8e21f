import { connectionOf } from '../../src/brain.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrainError } from '../../src/index.js';
import { fingerprint } from './fingerprint.js';
import { libraryCases, seedBrain, type Seed } from './hostile/library-cases.js';
import { tempBrain, type TempBrain } from '../helpers.js';

const BODY_LIMIT = 64 * 1024;
let t: TempBrain;
let seed: Seed;
beforeAll(async () => {
  t = await tempBrain({ maxBodyBytes: BODY_LIMIT });
  seed = seedBrain(t.brain);
});
afterAll(() => t.cleanup());

const cases = libraryCases(BODY_LIMIT);

/**
 * The database's fingerprint as the last refused case left it, proven unchanged; an accepted
 * case forgets it. The next refused case starts from that state, so it need not hash it again.
 */
let current: string | undefined;

describe('hostile input to the library', () => {
  it(`has a large corpus (${cases.length} cases)`, () => {
    expect(cases.length).toBeGreaterThanOrEqual(400);
  });

  for (const c of cases) {
    it(`${c.category}: ${c.name}`, () => {
      const expectation = c.expect;
      if ('accept' in expectation) {
        current = undefined;
        const result = c.run(t.brain, seed);
        expectation.accept(result, t.brain, seed);
        return;
      }
      const before = current ?? fingerprint(connectionOf(t.brain));
      current = undefined;
      let caught: unknown;
      try {
        c.run(t.brain, seed);
      } catch (err) {
        caught = err;
      }
      expect(caught, 'the call succeeded').toBeInstanceOf(BrainError);
      const err = caught as BrainError;
      expect(`${err.code}: ${err.message}`).toMatch(
        new RegExp(`^${expectation.reject}: (.*; )?${expectation.message.source}`),
      );
      // Clear means short and about the input, not a dump of it.
      expect(err.message.length).toBeLessThan(600);
      const after = fingerprint(connectionOf(t.brain));
      expect(after).toBe(before);
      current = after;
    });
  }
});
