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

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu;
const MAX_TERMS = 32;

export interface FtsQueries {
  /** Every word must match. */
  all: string;
  /** Any word may match; the widening when `all` finds too little. Same as `all` for one term. */
  any: string;
  terms: string[];
}

/** The searchable words of a text, lower-cased, in order, without repeats. */
export function queryTerms(input: string): string[] {
  const words = (input.normalize('NFKC').toLowerCase().match(WORD) ?? []).map((w) =>
    w.replace(/’/g, "'"),
  );
  const unique = [...new Set(words)];
  const meaningful = unique.filter(
    (w) => !STOP_WORDS.has(w) && !STOP_WORDS.has(w.replace(/'.*$/, '')),
  );
  return (meaningful.length > 0 ? meaningful : unique).slice(0, MAX_TERMS);
}

/** Queries for FTS5 MATCH, or undefined when the text has no words at all. */
export function buildFtsQueries(input: string): FtsQueries | undefined {
  const terms = queryTerms(input);
  if (terms.length === 0) return undefined;
  const quoted = terms.map((t) => `"${t.replace(/"/g, '""')}"`);
  return { all: quoted.join(' '), any: quoted.join(' OR '), terms };
}
