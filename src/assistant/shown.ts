/**
 * Text shown to the owner to decide on: every character that could hide, reorder or paint over
 * what is shown (control characters, escape sequences, bidi overrides, zero-width and other
 * invisible characters, look-alike spaces) is written out as an escape, and a long value is cut
 * where the cut shows, with its full length.
 */

/**
 * Characters never shown as themselves: controls and formats (Cc, Cf: ESC, NUL, U+202E, U+200B),
 * line and paragraph separators, private-use, unassigned and lone surrogate code points, every
 * space but the ASCII one, and the fillers and selectors that draw nothing.
 */
const HIDDEN =
  /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Cs}\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\u115f\u3164\uffa0\u2800]/u;

/** Marks that draw nothing on their own (a grapheme joiner, a filler, variation selectors). */
const isBlankMark = (code: number) =>
  code === 0x034f ||
  code === 0x1160 ||
  (code >= 0xfe00 && code <= 0xfe0f) ||
  (code >= 0xe0100 && code <= 0xe01ef);

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** One code point as shown: itself, or its escape (`\x1b`, `\n`, `\u{202e}`). */
function shownChar(ch: string): string {
  const code = ch.codePointAt(0)!;
  if (!HIDDEN.test(ch) && !isBlankMark(code)) return ch;
  const named = NAMED[ch];
  if (named) return named;
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
}

/** The text with every hidden character escaped: one line, nothing invisible. */
export function escapeInvisible(text: string): string {
  let out = '';
  for (const ch of text) out += shownChar(ch);
  return out;
}

/** How a cut shows: what was left out is never silent. */
export const cutNote = (total: number) =>
  `… [cut: ${total.toLocaleString('en-US')} characters in all]`;

/**
 * The text escaped, and cut to at most about `max` characters where the cut shows with the
 * text's full length in characters (code points). An escape is never split.
 */
export function shownValue(text: string, max: number): string {
  let out = '';
  let count = 0;
  let cut = false;
  for (const ch of text) {
    count++;
    if (cut) continue;
    const piece = shownChar(ch);
    if (out.length + piece.length > max) cut = true;
    else out += piece;
  }
  return cut ? out + cutNote(count) : out;
}

/**
 * Text already shown, kept to `max` characters: cut visibly, with the length it had. Never
 * throws, whatever it is given; NUL and lone surrogates (which SQLite text refuses) are escaped.
 */
export function cutVisibly(text: string, max: number): string {
  const clean = text.replace(/[\0\p{Cs}]/gu, (ch) => shownChar(ch));
  if (clean.length <= max) return clean;
  const total = [...clean].length;
  const note = cutNote(total);
  let out = '';
  for (const ch of clean) {
    if (out.length + ch.length + note.length > max) break;
    out += ch;
  }
  return out + note;
}

/** Unquoted, these characters mean themselves to a shell and to a reader. */
const BARE = /^[A-Za-z0-9_\-.,/:=@%+^]+$/;

/**
 * One word as a shell would read it back: bare when plain, else in single quotes (a quote inside
 * as `'\''`). The mapping is one to one, so equal texts mean equal word lists.
 */
export function quoteWord(word: string): string {
  return BARE.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The words of a text made by quoteWord and joined by single spaces; undefined if it is not one. */
export function splitQuoted(text: string): string[] | undefined {
  const words: string[] = [];
  let word = '';
  let started = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === ' ') {
      if (!started) return undefined;
      words.push(word);
      word = '';
      started = false;
    } else if (ch === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) return undefined;
      word += text.slice(i + 1, end);
      i = end;
      started = true;
    } else if (ch === '\\' && text[i + 1] === "'") {
      word += "'";
      i++;
      started = true;
    } else if (BARE.test(ch)) {
      word += ch;
      started = true;
    } else return undefined;
  }
  if (!started) return undefined;
  words.push(word);
  return words;
}
