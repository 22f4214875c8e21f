import { describe, expect, it } from 'vitest';
import { crossValidate, type Tally } from '../../../src/eval/folds.js';

const t = (sum: number, n: number): Tally => ({ sum, n });
const settings = { a: 'A', b: 'B', c: 'C' };

describe('leave-one-out cross-validation', () => {
  it('chooses on the other units, scores the held-out one, and adopts only what every fold chose', () => {
    const results = {
      x: { a: t(5, 10), b: t(7, 10), c: t(6, 10) },
      y: { a: t(5, 10), b: t(7, 10), c: t(6, 10) },
      z: { a: t(5, 10), b: t(2, 10), c: t(9, 10) },
    };
    const cv = crossValidate(results, settings, 'a');
    // Held out x: chosen on y+z → c (15/20) over b (9/20); x scores c at 0.6.
    expect(cv.folds[0]).toEqual({
      held_out: 'x',
      chosen: 'C',
      train: 0.75,
      held_out_score: 0.6,
      default_score: 0.5,
    });
    // Held out z: chosen on x+y → b, which does badly on z.
    expect(cv.folds[2]!.chosen).toBe('B');
    expect(cv.folds[2]!.held_out_score).toBe(0.2);
    expect(cv.cross_validated).toBeCloseTo((6 + 6 + 2) / 30, 12);
    expect(cv.default_cross_validated).toBe(0.5);
    expect(cv.dev_choice).toBe('C');
    expect(cv.dev).toBeCloseTo(21 / 30, 12);
    // The folds disagree: nothing is adopted, though the dev set alone would pick c.
    expect(cv.adopt).toBeUndefined();
  });

  it('adopts a setting every fold chooses, and keeps the default on ties', () => {
    const wins = { x: { a: t(1, 4), b: t(3, 4) }, y: { a: t(2, 4), b: t(3, 4) } };
    expect(crossValidate(wins, { a: 'A', b: 'B' }, 'a').adopt).toBe('B');
    const tie = { x: { a: t(3, 4), b: t(3, 4) }, y: { a: t(2, 4), b: t(2, 4) } };
    expect(crossValidate(tie, { a: 'A', b: 'B' }, 'a').adopt).toBe('A');
  });

  it('weighs units by their questions, not equally', () => {
    const results = { big: { a: t(90, 100), b: t(0, 100) }, small: { a: t(0, 1), b: t(1, 1) } };
    const cv = crossValidate(results, { a: 'A', b: 'B' }, 'a');
    expect(cv.dev_choice).toBe('A');
    expect(cv.default_cross_validated).toBeCloseTo(90 / 101, 12);
  });
});
