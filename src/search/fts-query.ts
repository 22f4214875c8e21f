/**
 * Turn whatever a person typed into FTS5 queries that cannot fail on syntax: every word becomes a
 * quoted string, so quotes, `:`, `*`, `^`, NEAR, AND/OR/NOT, parentheses and column filters in the
 * input are only ever words.
 */

// Words that carry no meaning for retrieval; dropped unless nothing else is left.
const STOP_WORDS = new Set(
  `a about above after again against all am an and any are as at be because been before being below between both but by
  can could did do does doing done down during each few for from further had has have having he her here hers herself him
  himself his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other our
  ours ourselves out over own same she should so some such than that the their theirs them themselves then there these they
  this those through to too under until up very was we were what when where which while who whom why will with would you
  your yours yourself yourselves s t d ll m re ve y did does don doesn didn isn wasn weren aren won wouldn shouldn couldn
  ever also get got let like likes liked much many one ones thing things would could`.split(/\s+/),
);

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
}

/** The words of a text as the index splits them, lower-cased, in order. */
export function queryWords(input: string): string[] {
  return input.normalize('NFKC').toLowerCase().match(WORD) ?? [];
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
  return { all: quoted.join(' '), any: quoted.join(' OR '), terms };
}

/** One word as an FTS5 string: matched as a word, whatever characters it holds. */
export function quoteTerm(term: string): string {
  return `"${term.replace(/"/g, '""')}"`;
}
