import { INDEX_STOP_WORDS } from '../db/index-text.js';

/**
 * Turn whatever a person typed into FTS5 queries that cannot fail on syntax: every word becomes a
 * quoted string, so quotes, `:`, `*`, `^`, NEAR, AND/OR/NOT, parentheses and column filters in the
 * input are only ever words.
 */

// Words that carry no meaning for retrieval; dropped unless nothing else is left. The message
// index does not hold them (migration 0007), so the list is the index's own.
const INDEX_STOP_WORD_SET = new Set(INDEX_STOP_WORDS);
const STOP_WORDS = new Set([
  ...INDEX_STOP_WORDS,
  ...'ever also get got let like likes liked much many one ones thing things'.split(' '),
]);

// A word is a run of letters and digits. The index's tokenizer (unicode61) splits on the same
// punctuation, apostrophes included, so each term is one token and no query is ever a phrase:
// ranking needs no word positions beyond BM25's own counts.
const WORD = /[\p{L}\p{N}]+/gu;
const MAX_TERMS = 32;

export interface FtsQueries {
  /** Every word must match. */
  all: string;
  /** Any word may match; the widening when `all` finds too little. Same as `all` for one term. */
  any: string;
  terms: string[];
  /** Every term is a stop word: the message index holds none of them (migration 0007). */
  stopWordsOnly: boolean;
}

/** The words of a text as the index splits them, lower-cased, in order. */
export function queryWords(input: string): string[] {
  return wordsOfNormalized(normalized(input));
}

/** The words of a text already normalized (`normalized`). */
export function wordsOfNormalized(text: string): string[] {
  return text.match(WORD) ?? [];
}

/** Printable ASCII needs no NFKC (it leaves ASCII as it is), which costs more than a scan. */
const ASCII = /^[\t\n\r -~]*$/u;

/** The text as words are matched in it: NFKC, lower-cased. */
export function normalized(input: string): string {
  return (ASCII.test(input) ? input : input.normalize('NFKC')).toLowerCase();
}

/** The searchable words of a text, lower-cased, in order, without repeats. */
export function queryTerms(input: string): string[] {
  const unique = [...new Set(queryWords(input))];
  const meaningful = unique.filter((w) => !STOP_WORDS.has(w));
  return (meaningful.length > 0 ? meaningful : unique).slice(0, MAX_TERMS);
}

/** Queries for FTS5 MATCH, or undefined when the text has no words at all. */
export function buildFtsQueries(input: string): FtsQueries | undefined {
  const terms = queryTerms(input);
  if (terms.length === 0) return undefined;
  const quoted = terms.map(quoteTerm);
  return {
    all: quoted.join(' '),
    any: quoted.join(' OR '),
    terms,
    stopWordsOnly: terms.every((t) => INDEX_STOP_WORD_SET.has(t)),
  };
}

/** One word as an FTS5 string: matched as a word, whatever characters it holds. */
export function quoteTerm(term: string): string {
  return `"${term.replace(/"/g, '""')}"`;
}

/**
 * A rough stem, so "paints", "painted" and "painting" count as one word. Only for counting which
 * query words a message holds (FTS5's Porter stemmer ranks): near enough is good enough.
 */
export function roughStem(word: string): string {
  // /(?:ing|ed|es|s|ly|er)$/ removed, without a regular expression: the leftmost ending wins.
  if (word.length <= 4) return word;
  if (word.endsWith('ing')) return word.slice(0, -3);
  const two = word.slice(-2);
  if (two === 'ed' || two === 'es' || two === 'ly' || two === 'er') return word.slice(0, -2);
  return word.endsWith('s') ? word.slice(0, -1) : word;
}

/**
 * Whether a normalized text holds a word whose rough stem is `stem` (a stem of a query word):
 * such a word starts with the stem, so only where the stem occurs at the start of a word is the
 * word read, instead of splitting the whole text into words (`wordsOfNormalized`, which gives the
 * same words: runs of letters and digits).
 */
export function holdsStem(text: string, stem: string): boolean {
  for (let at = text.indexOf(stem); at >= 0; at = text.indexOf(stem, at + 1)) {
    if (at > 0 && isWordCharAt(text, at - 1)) continue;
    let end = at + stem.length;
    while (end < text.length && isWordCharAt(text, end)) end++;
    if (roughStem(text.slice(at, end)) === stem) return true;
  }
  return false;
}

const WORD_CHAR = /^[\p{L}\p{N}]$/u;

/** Whether the UTF-16 unit at `i` is part of a letter or digit (both halves of a surrogate pair). */
function isWordCharAt(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  if (c < 128) return (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
  const low = c >= 0xdc00 && c <= 0xdfff;
  const start = low && i > 0 && isHighSurrogate(text.charCodeAt(i - 1)) ? i - 1 : i;
  return WORD_CHAR.test(String.fromCodePoint(text.codePointAt(start)!));
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}
