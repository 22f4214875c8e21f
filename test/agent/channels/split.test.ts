import { describe, expect, test } from 'vitest';
import { splitMessage } from '../../../agent/channels/split.js';

const fencesBalanced = (part: string) => (part.match(/^```/gm) ?? []).length % 2 === 0;

describe('splitMessage', () => {
  test('a text within the limit is one part, unchanged', () => {
    expect(splitMessage('hello\n\nworld', 2000)).toEqual(['hello\n\nworld']);
  });

  test('an empty or blank text gives no part at all', () => {
    expect(splitMessage('', 2000)).toEqual([]);
    expect(splitMessage('  \n ', 2000)).toEqual([]);
  });

  test('a 5,000-character prose reply becomes parts of at most 2,000 characters that carry every word in order', () => {
    const words = Array.from({ length: 1000 }, (_, i) => `w${i}`);
    const text = words.join(' ').slice(0, 5000);
    const parts = splitMessage(text, 2000);
    expect(parts.length).toBeGreaterThanOrEqual(3);
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(2000);
    expect(parts.join(' ')).toBe(text);
  });

  test('cuts prefer a paragraph break to a line break inside the window', () => {
    const a = 'a'.repeat(1200);
    const b = 'b'.repeat(500);
    const c = 'c'.repeat(900);
    const parts = splitMessage(`${a}\n${b}\n\n${c}`, 2000);
    expect(parts).toEqual([`${a}\n${b}`, c]);
  });

  test('a code block cut in two is closed at the end of one part and reopened with its language in the next', () => {
    const code = Array.from({ length: 300 }, (_, i) => `const x${i} = ${i};`).join('\n');
    const text = `Here:\n\n\`\`\`ts\n${code}\n\`\`\`\n\nDone.`;
    const parts = splitMessage(text, 2000);
    expect(parts.length).toBeGreaterThan(2);
    for (const p of parts) {
      expect(p.length).toBeLessThanOrEqual(2000);
      expect(fencesBalanced(p)).toBe(true);
    }
    expect(parts[1]!.startsWith('```ts\n')).toBe(true);
    // Every line of code arrives once, in order.
    const lines = parts
      .join('\n')
      .split('\n')
      .filter((l) => l.startsWith('const '));
    expect(lines).toEqual(code.split('\n'));
  });

  test('a text without any break is cut hard at the limit', () => {
    const parts = splitMessage('x'.repeat(4500), 2000);
    expect(parts).toHaveLength(3);
    for (const p of parts.slice(0, 2)) expect(p.length).toBeGreaterThan(1990);
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(2000);
    expect(parts.join('')).toBe('x'.repeat(4500));
  });

  test('a surrogate pair is never cut in half', () => {
    const parts = splitMessage('😀'.repeat(1500), 2000);
    expect(parts.join('')).toBe('😀'.repeat(1500));
    for (const p of parts) expect(p.isWellFormed()).toBe(true);
  });
});
