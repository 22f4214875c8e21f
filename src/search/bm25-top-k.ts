import { upperBound } from './bm25.js';
import { quoteTerm } from './fts-query.js';

/**
 * The exact top k by BM25 of the rows holding any of a query's words, without scoring every one
 * of them (MaxScore, Turtle & Flood 1995, in two statements).
 *
 * The bound. brain_bm25 gives a row Σ idf(t)·f·(k1+1)/(f + k1·(1−b+b·D/avgdl)) over the query's
 * words t, f being t's weighted hits in the row. For f ≥ 0 and a positive denominator that term
 * is below idf(t)·(k1+1), whatever the row: so a row holding only words of a set S scores below
 * UB(S) = Σ_{t∈S} idf(t)·(k1+1). idf(t) depends on the word's row count alone, which ranking needs
 * anyway (word-counts.ts keeps it); the bound needs nothing else.
 *
 * The pruning. Let θ be the k-th best score among some rows. Sort the words by UB, lowest first
 * (highest row count first), and let L be the longest such prefix with UB(L) < θ; E, the rest, are
 * the essential words. A row holding no word of E scores below θ, so it cannot enter the top k:
 * scoring only the rows holding a word of E, by every word of the query, finds the same top k as
 * scoring every row, ties included (ties go to the lower rowid in both, and a pruned row is
 * strictly below θ). The statement is `(t1 OR … OR tn) AND (e1 OR …)`: brain_bm25 scores the first
 * n phrases, so each row's score is the very sum the exhaustive statement computes, term by term
 * in the same order. FTS5 answers the AND by seeking the common words' posting lists to the rows
 * of the rare ones (doclist indexes), so their long lists are not read in full.
 *
 * A tighter bound serves as well: the most the word adds to any row that holds it, when known
 * (impacts.ts reads it from the word's classes for common words). Only the bounds of the words
 * that may be dropped are asked for, and only once θ is known.
 *
 * θ comes from a first statement over the rows of the rarest words (up to FIRST_PASS_ROWS rows in
 * all, at least one word; more words while those find fewer than k rows): its k-th score is a
 * lower bound of the true k-th. When the essential words it gives are among those rarest words,
 * its top k is already exact; otherwise one more statement scores the rows of the essential
 * words (both sets are prefixes of the same order).
 */

/** How many posting rows the first statement may score to find θ. */
export const FIRST_PASS_ROWS = 20_000;

export interface Counted {
  term: string;
  df: number;
}

/**
 * The words a row must hold to possibly score at least `theta` (higher is better): the words
 * left after dropping, cheapest first, those whose bounds sum below theta. Words come sorted by
 * row count, most first removed; the result keeps the input order of the rarest.
 */
export function essentialTerms(
  sorted: Counted[],
  rows: number,
  theta: number,
  bound: (c: Counted) => number = (c) => upperBound(rows, c.df),
): Counted[] {
  // Rounding: keep a margin so that float error can only make the pruning more cautious.
  let sum = 0;
  let cut = sorted.length; // sorted rarest first: drop from the end
  while (cut > 0) {
    const next = sum + bound(sorted[cut - 1]!);
    if (!(next * (1 + 1e-9) + 1e-9 < theta)) break;
    sum = next;
    cut--;
  }
  return sorted.slice(0, cut);
}

/** The first words, rarest first, whose row counts sum to at most `budget` (at least one word). */
export function rarestTerms(sorted: Counted[], budget: number): Counted[] {
  let total = 0;
  let n = 0;
  while (n < sorted.length && (n === 0 || total + sorted[n]!.df <= budget))
    total += sorted[n++]!.df;
  return sorted.slice(0, n);
}

/** Rarest first; ties by the word itself, so every caller sorts alike. */
export function byRarity(counted: Counted[]): Counted[] {
  return [...counted].sort(
    (a, b) => a.df - b.df || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0),
  );
}

/** Essential words held by at most this many rows have all their rows scored. */
export const WHOLE_ROWS = 20_000;

/** The most words the combinations are looked for among, and the most combinations kept. */
const MAX_COMBINED_WORDS = 8;
const MAX_COMBINATIONS = 16;
/** What scoring a row costs in postings walked by an AND (measured at 1M: ~0.7 µs against ~33 ns). */
const SCORED_PER_WALKED = 20;

/**
 * The rows the second statement must score, tighter than "any essential word" when essential
 * words are common (a question with "since", "news", "last", "week"): a row holding none of the
 * rarer essential words (those of WHOLE_ROWS rows or fewer) scores at most the sum of the bounds
 * of the commoner words it holds, so it can reach θ only if it holds every word of some set of
 * them whose bounds reach θ. The MATCH expression: the rarer essential words, OR each smallest
 * such set as an AND. Undefined when no essential word is common, or the words or sets are too
 * many: then every row of an essential word.
 */
export function essentialCombinations(
  sorted: Counted[],
  essential: number,
  theta: number,
  bound: (c: Counted) => number,
  wholeRows = WHOLE_ROWS,
): string | undefined {
  const whole = sorted.slice(0, essential).filter((c) => c.df <= wholeRows);
  const combined = sorted.filter((c, i) => i >= essential || c.df > wholeRows);
  if (whole.length === essential || combined.length > MAX_COMBINED_WORDS) return undefined;
  const bounds = combined.map(bound);
  // Every set of the commoner words, fewest words first: a set counts unless it holds a smaller
  // one that counts. Rounding: the same margin as essentialTerms, so only a set sure to stay
  // below θ is left out.
  const sets = Array.from({ length: (1 << combined.length) - 1 }, (_, i) => i + 1).sort(
    (a, b) => popcount(a) - popcount(b) || a - b,
  );
  const smallest: number[] = [];
  for (const set of sets) {
    let sum = 0;
    for (let i = 0; i < combined.length; i++) if (set & (1 << i)) sum += bounds[i]!;
    if (sum * (1 + 1e-9) + 1e-9 < theta) continue;
    if (smallest.some((s) => (s & set) === s)) continue;
    smallest.push(set);
    if (smallest.length > MAX_COMBINATIONS) return undefined;
  }
  // Worth it only when walking each set's lists costs less than scoring every row of the common
  // essential words (at 1M messages a row scored costs ~20 times a posting walked).
  const walked = smallest.reduce(
    (sum, set) => sum + combined.reduce((n, c, i) => n + (set & (1 << i) ? c.df : 0), 0),
    0,
  );
  const scored = sorted.slice(0, essential).reduce((n, c) => n + (c.df > wholeRows ? c.df : 0), 0);
  if (walked > SCORED_PER_WALKED * scored) return undefined;
  const all = (set: number) =>
    combined.flatMap((c, i) => (set & (1 << i) ? [quoteTerm(c.term)] : [])).join(' AND ');
  const expression = [
    ...whole.map((c) => quoteTerm(c.term)),
    ...smallest.map((set) => (popcount(set) === 1 ? all(set) : `(${all(set)})`)),
  ].join(' OR ');
  return expression === '' ? undefined : expression;
}

function popcount(n: number): number {
  let c = 0;
  for (let v = n; v; v &= v - 1) c++;
  return c;
}

/** The MATCH expression scoring every term but choosing the rows holding one of `among`. */
export function prunedMatch(terms: string[], among: string[]): string {
  if (among.length >= terms.length) return terms.map(quoteTerm).join(' OR ');
  return chosenBy(terms, among.map(quoteTerm).join(' OR '));
}

/** The MATCH expression scoring every term but choosing the rows `expression` matches. */
function chosenBy(terms: string[], expression: string): string {
  return `(${terms.map(quoteTerm).join(' OR ')}) AND (${expression})`;
}

/**
 * One ranked row as the rank statements give it: bm25 is minus the score (lower is better).
 */
export interface Ranked {
  rowid: number;
  bm25: number;
}

export interface PruneOptions {
  /** How many posting rows the first statement may score to find θ (FIRST_PASS_ROWS). */
  firstPassRows?: number;
  /** A word's bound when tighter than idf·(k1+1) is known (impacts.ts). */
  bound?: (c: Counted) => number;
  /** One word's best rows alone, k of them (see withOnlyTheLast). */
  single?: (term: Counted, k: number) => Ranked[];
  /** Essential words held by more rows are scored only in combinations (WHOLE_ROWS). */
  wholeRows?: number;
}

/**
 * The exact top k of the rows holding any of `terms`, given each term's row count and `run`,
 * which ranks the rows a MATCH expression chooses by brain_bm25 over `terms` (first n phrases).
 * Returns what was ranked and how many statements it took (for tests and the bench).
 */
export function pruneTopK(
  terms: string[],
  dfs: number[],
  rows: number,
  k: number,
  run: (match: string) => Ranked[],
  { firstPassRows = FIRST_PASS_ROWS, bound, single, wholeRows = WHOLE_ROWS }: PruneOptions = {},
): { ranked: Ranked[]; statements: number; essential: number } {
  const sorted = byRarity(terms.map((term, i) => ({ term, df: dfs[i]! })));
  // θ needs k rows: while the rarest words hold fewer, take in more words (4 × the budget, and at
  // least one more word). Each pass scores a superset of the last, so θ only rises.
  let budget = firstPassRows;
  let statements = 0;
  let first: Counted[];
  let ranked: Ranked[];
  for (;;) {
    first = rarestTerms(sorted, budget);
    ranked = run(
      prunedMatch(
        terms,
        first.map((c) => c.term),
      ),
    );
    statements++;
    if (first.length === terms.length) return { ranked, statements, essential: terms.length };
    if (ranked.length >= k) break;
    if (single && first.length === terms.length - 1) {
      return {
        ranked: withOnlyTheLast(ranked, sorted[first.length]!, k, single),
        statements: statements + 1,
        essential: terms.length,
      };
    }
    const held = first.reduce((sum, c) => sum + c.df, 0);
    budget = Math.max(budget * 4, held + sorted[first.length]!.df);
  }
  const theta = -ranked[k - 1]!.bm25;
  const boundOf = bound ?? ((c: Counted) => upperBound(rows, c.df));
  const essential = essentialTerms(sorted, rows, theta, boundOf);
  if (essential.length <= first.length) {
    return { ranked, statements: 1, essential: essential.length };
  }
  const combinations = essentialCombinations(sorted, essential.length, theta, boundOf, wholeRows);
  const again = run(
    combinations === undefined
      ? prunedMatch(
          terms,
          essential.map((c) => c.term),
        )
      : chosenBy(terms, combinations),
  );
  return { ranked: again, statements: 2, essential: essential.length };
}

/**
 * The top k when the rows holding any word but the commonest, `ranked`, are fewer than k, so all of
 * them: the rest of the top k hold that word and none of the others, and score what that word
 * alone gives them (the others add exactly 0). Its own best rows, as many more as `ranked` holds
 * (`single`: from its score classes for a common word, impacts.ts), less those already ranked,
 * are the best of them, without scoring every row that holds it.
 */
function withOnlyTheLast(
  ranked: Ranked[],
  last: Counted,
  k: number,
  single: (term: Counted, k: number) => Ranked[],
): Ranked[] {
  const held = new Set(ranked.map((r) => r.rowid));
  const alone = single(last, k + ranked.length).filter((r) => !held.has(r.rowid));
  return [...ranked, ...alone].sort((a, b) => a.bm25 - b.bm25 || a.rowid - b.rowid).slice(0, k);
}
