import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadRankExtension } from '../../../src/db/rank-extension.js';

// brain_snippet makes FTS5's snippet() from texts tokenized once: compared here with snippet()
// itself, on an index of random texts with the indexes' tokenizer.
let db: BetterSqlite3.Database;
beforeEach(() => {
  db = new BetterSqlite3(':memory:');
  expect(loadRankExtension(db)).toBe(true);
  db.exec(`CREATE VIRTUAL TABLE f USING fts5(a, b, c,
    tokenize = 'porter unicode61 remove_diacritics 2')`);
});
afterEach(() => db.close());

// Stemmed forms, diacritics, a word of two tokens' worth of punctuation and sentence ends.
const WORDS =
  'dance dancing danced studio night café cafe naïve naive the a of quotes opening run running ran long x y z'.split(
    ' ',
  );
const SEPARATORS = [' ', ' ', ' ', ', ', '. ', ': ', '  ', '\n', '—', '. \n', '.', ' :', '! '];

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

describe('brain_snippet', () => {
  it('gives what snippet() gives, for every row and column choice, and NULL for rows that do not match', () => {
    const rnd = random(7);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
    const text = (n: number): string => {
      let s = rnd() < 0.2 ? ' ' : '';
      for (let i = 0; i < n; i++) s += pick(WORDS) + pick(SEPARATORS);
      return rnd() < 0.5 ? s.trim() : s;
    };
    const insert = db.prepare(`INSERT INTO f (rowid, a, b, c) VALUES (?, ?, ?, ?)`);
    const rows: number[] = [];
    for (let id = 1; id <= 400; id++) {
      // Short and long texts (windows of 16 tokens, and texts shorter than one), NULLs, empties.
      const a = rnd() < 0.1 ? null : text(Math.floor(rnd() * 6));
      insert.run(id, a, text(Math.floor(rnd() * 60)), text(Math.floor(rnd() * 25)));
      rows.push(id);
    }
    let compared = 0;
    let matched = 0;
    for (let q = 0; q < 30; q++) {
      const terms = [
        ...new Set(Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => pick(WORDS))),
      ];
      const any = terms.map((w) => `"${w}"`).join(' OR ');
      for (const column of [-1, 0, 1, 2]) {
        const expected = new Map(
          db
            .prepare(
              `SELECT rowid, snippet(f, ${column}, '[', ']', '…', 16) FROM f WHERE f MATCH ?`,
            )
            .raw()
            .all(any) as Array<[number, string]>,
        );
        const got = db
          .prepare(
            `SELECT rowid, brain_snippet(?, ${column}, 16, '[', ']', '…', a, b, c) FROM f ORDER BY rowid`,
          )
          .raw()
          .all(terms.join('\x1f')) as Array<[number, string | null]>;
        for (const [rowid, snippet] of got) {
          expect(snippet, `${JSON.stringify(terms)} column ${column} row ${rowid}`).toBe(
            expected.get(rowid) ?? null,
          );
          compared++;
          if (snippet !== null) matched++;
        }
      }
    }
    expect(compared).toBe(30 * 4 * rows.length);
    expect(matched).toBeGreaterThan(compared / 4);
  });

  it('answers for a text of a word said 200,000 times (snippet() takes its square)', () => {
    // snippet() scores every hit's window against every hit: seconds for 20,000 repeats, hours
    // for 200,000, a message any sender can write. The window is the same at any length.
    const text = (n: number) => `${'tent '.repeat(n)}the lake.`;
    db.prepare(`INSERT INTO f (rowid, a, b, c) VALUES (1, '', ?, '')`).run(text(2_000));
    const expected = db
      .prepare(`SELECT snippet(f, 1, '[', ']', '…', 16) FROM f WHERE f MATCH ?`)
      .pluck()
      .get('"tent" OR "lake"') as string;
    expect(expected).toMatch(/^….*\[lake\]\.$/);
    const got = db
      .prepare(`SELECT brain_snippet(?, 1, 16, '[', ']', '…', '', ?, '')`)
      .pluck()
      .get('tent\x1flake', text(200_000));
    expect(got).toBe(expected);
  });

  it('marks a word the tokenizer makes two tokens of as one phrase, as snippet() does', () => {
    db.prepare(
      `INSERT INTO f (rowid, a, b, c) VALUES (1, '', 'the e-mail came: e mail, then mail. E-Mail again', '')`,
    ).run();
    const expected = db
      .prepare(`SELECT snippet(f, 1, '[', ']', '…', 16) FROM f WHERE f MATCH ?`)
      .pluck()
      .get('"e-mail" OR "again"');
    const got = db
      .prepare(`SELECT brain_snippet(?, 1, 16, '[', ']', '…', a, b, c) FROM f`)
      .pluck()
      .get('e-mail\x1fagain');
    expect(got).toBe(expected);
    expect(got).toBe('the [e-mail] came: [e mail], then mail. [E-Mail] [again]');
    // Words the tokenizer makes nothing of match nothing.
    expect(
      db.prepare(`SELECT brain_snippet(?, 1, 16, '[', ']', '…', a, b, c) FROM f`).pluck().get('—'),
    ).toBeNull();
  });
});
