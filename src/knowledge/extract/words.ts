// The words that carry an entry's meaning, to tell a near-duplicate from a new fact: lower-cased,
// stop words left out, each cut to a rough stem so "decided" meets "decide".

const STOP_WORDS = new Set(
  (
    'a an and are as at be been being but by can could did do does for from had has have he her ' +
    'hers him his i if in into is it its just me my of on or our ours she so than that the their ' +
    'them then there these they this those to too up us very was we were what when which who ' +
    'will with would you your yours about also again all any because before after both each ' +
    'few more most other some such no nor not only own same should now'
  ).split(' '),
);

function stem(word: string): string {
  if (word.length <= 4) return word;
  return word.replace(/(?:ing|ed|es|s|ly)$/, '');
}

/** The distinct stems of `text`'s content words. */
export function contentStems(text: string): Set<string> {
  const stems = new Set<string>();
  for (const word of text
    .toLowerCase()
    .normalize('NFKD')
    .match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (!STOP_WORDS.has(word)) stems.add(stem(word));
  }
  return stems;
}

/**
 * At or above this overlap of content words, one entry's words all held by the other, two entries
 * say the same thing.
 */
export const SAME_FACT_F1 = 0.8;

/**
 * Whether two entries say the same thing: their content words overlap at F1 ≥ SAME_FACT_F1 and
 * one's words are all the other's ("Ana likes tea" and "Really, Ana likes tea"). Overlap alone
 * would join "we decided to use Postgres for the hub" with "… SQLite …", where the one word that
 * differs is what was decided.
 */
export function sameFact(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (overlapF1(a, b) < SAME_FACT_F1) return false;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const s of small) if (!large.has(s)) return false;
  return true;
}

/** Token F1 of two sets of stems: 1 when equal, 0 when disjoint. */
export function overlapF1(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const s of a) if (b.has(s)) shared++;
  if (shared === 0) return 0;
  const precision = shared / a.size;
  const recall = shared / b.size;
  return (2 * precision * recall) / (precision + recall);
}
