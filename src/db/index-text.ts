import type { Database } from 'better-sqlite3';

/*
 * What the message index holds of a text (migration 0007): the text without its stop words.
 * Searches never look for them (src/search/fts-query.ts drops them from queries), yet they were a
 * third of the index. The function runs in the index's triggers, and FTS5 recomputes a message's
 * indexed text to remove it: its output must never change for a given input. So the list and the
 * rule are frozen here, apart from the query's list (which may change), and word edges are ASCII
 * only, whatever Unicode version the JavaScript engine knows.
 */

/** The SQL name of the function, versioned: a different rule would need a new name and index. */
export const INDEX_TEXT_FUNCTION = 'brain_index_text_v1';

export const INDEX_STOP_WORDS: readonly string[] =
  `a about above after again against all am an and any are as at be because been before
being below between both but by can could did do does doing done down during each few for from further had has have
having he her here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not
now of off on once only or other our ours ourselves out over own same she should so some such than that the their
theirs them themselves then there these they this those through to too under until up very was we were what when where
which while who whom why will with would you your yours yourself yourselves s t d ll m re ve y don doesn didn isn wasn
weren aren won wouldn shouldn couldn`
    .split(/\s+/)
    .filter(Boolean);

// A stop word stands alone between ASCII non-alphanumerics (or the ends of the text). A word
// touching any other character (a letter with an accent, a digit, an emoji) is kept as it is.
const STOP_WORD = new RegExp(
  `(?<![A-Za-z0-9\\u0080-\\uFFFF])(?:${INDEX_STOP_WORDS.join('|')})(?![A-Za-z0-9\\u0080-\\uFFFF])`,
  'gi',
);

/** The text as the message index holds it: each stop word replaced by a space. */
export function indexText(text: string | null): string | null {
  return text === null ? null : text.replace(STOP_WORD, ' ');
}

/** Every connection that writes messages needs the function (their index triggers call it). */
export function registerIndexText(db: Database): void {
  db.function(INDEX_TEXT_FUNCTION, { deterministic: true }, (text: unknown) =>
    typeof text === 'string' ? indexText(text) : text,
  );
}
