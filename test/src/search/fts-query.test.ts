import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../../bench/crash.js';
import { holdsStem, roughStem, wordsOfNormalized } from '../../../src/search/fts-query.js';

/** The definition: some word of the text (a run of letters and digits) has the stem as its own. */
const byWords = (text: string, stem: string) =>
  wordsOfNormalized(text).some((w) => w.startsWith(stem) && roughStem(w) === stem);

describe('holdsStem', () => {
  it('finds a word by its rough stem exactly as splitting the text into words does', () => {
    // Letters, digits, word ends, accented and astral letters, a combining mark, an emoji, and a
    // lone surrogate: the units where reading around the stem could differ from splitting.
    const units = [
      'a',
      'e',
      'n',
      's',
      'd',
      'i',
      'g',
      'l',
      'y',
      'r',
      '1',
      ' ',
      '-',
      "'",
      'é',
      '𝒜',
      '\u0301',
      '🙂',
      '\ud835',
    ];
    const next = mulberry32(7); // seeded, so a failure reproduces
    const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)]!;
    let checked = 0;
    let held = 0;
    for (let n = 0; n < 4000; n++) {
      const text = Array.from({ length: 1 + Math.floor(next() * 30) }, () => pick(units)).join('');
      const words = wordsOfNormalized(text);
      // Stems of the text's own words (often held) and of made-up ones (often not).
      const made = Array.from({ length: 2 + Math.floor(next() * 6) }, () =>
        pick(units.slice(0, 11)),
      )
        .join('')
        .trim();
      for (const word of [...words.slice(0, 3), made]) {
        const stem = roughStem(word);
        if (stem === '' || !/^[\p{L}\p{N}]+$/u.test(stem)) continue;
        expect(holdsStem(text, stem), JSON.stringify([text, stem])).toBe(byWords(text, stem));
        checked++;
        if (byWords(text, stem)) held++;
      }
    }
    expect(checked).toBeGreaterThan(4000);
    expect(held).toBeGreaterThan(1000);
    expect(checked - held).toBeGreaterThan(1000);
  });

  it('reads a word only where it starts: "painting" holds "paint", "repainted" does not', () => {
    expect(holdsStem('we were painting it', 'paint')).toBe(true);
    expect(holdsStem('we repainted it', 'paint')).toBe(false);
    expect(holdsStem('a paintbrush', 'paint')).toBe(false);
  });
});
