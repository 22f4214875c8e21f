import type { BrainContext } from '../context.js';
import type { SearchType } from '../validation.js';
import { holdsStem, normalized, roughStem, type FtsQueries } from './fts-query.js';
import { filtersSql, narrowed, rankWords, type SearchFilters } from './rank.js';

/** One retrieved row: higher score is better; rank is its 1-based place in its retriever's list. */
export interface Candidate {
  type: SearchType;
  rowid: number;
  score: number;
  rank: number;
  /** A message's score by words, in its parts (they add up to `score`). */
  parts?: ScoreParts;
}

/** What a message's score by words is made of. */
export interface ScoreParts {
  /** Its own BM25 (FTS5's sign turned: higher is better). */
  bm25: number;
  /** What it gains from the messages before and after it in its thread. */
  context: number;
  /** The bonus for the query's words it and they hold. */
  words: number;
}

/**
 * What a message gains from its context: a share of the scores of the message it follows and of
 * the one that answers it, and a bonus for each word of the query found in it or them. Chosen by
 * leave-one-conversation-out cross-validation on the dev set, every fold agreeing
 * (bench/HISTORY.md).
 */
export const CONTEXT_WEIGHTS = { previous: 0.7, next: 0.4, perWord: 2 };

interface Pooled {
  type: SearchType;
  rowid: number;
  /** Higher is better: minus BM25, plus what context adds. */
  score: number;
}

/** How many of the newest messages a query of stop words alone reads. */
export const STOP_WORDS_SCAN = 20_000;

/**
 * The newest messages holding a query's words in order ("how are you doing" finds "How are you
 * all doing?"), newest first, among the latest STOP_WORDS_SCAN (plan tests).
 */
export const STOP_WORDS_SQL = `SELECT x.id AS rowid FROM messages x
  WHERE x.id > (SELECT coalesce(max(id), 0) FROM messages) - ${STOP_WORDS_SCAN}
    AND x.body LIKE @pattern ${filtersSql('message')}
  ORDER BY x.id DESC LIMIT @k`;

/**
 * The message index holds no stop words (migration 0007): a query of nothing else reads the text
 * of the newest messages instead. Scores fall with age, below any BM25 score of a real word.
 */
function stopWordsOnly(
  ctx: BrainContext,
  queries: FtsQueries,
  filters: SearchFilters,
  k: number,
): Pooled[] {
  const pattern = `%${queries.terms.join('%')}%`;
  return ctx.q
    .get<[SearchFilters & { pattern: string; k: number }], { rowid: number }>(STOP_WORDS_SQL)
    .all({ ...filters, pattern, k })
    .map((r, i) => ({ type: 'message' as const, rowid: r.rowid, score: 1 / (i + 2) }));
}

function retrieveType(
  ctx: BrainContext,
  type: SearchType,
  queries: FtsQueries,
  filters: SearchFilters,
  k: number,
  wideK = k,
): Pooled[] {
  if (type === 'message' && queries.stopWordsOnly) return stopWordsOnly(ctx, queries, filters, k);
  const ranked = rankWords(ctx, type, filters, queries.terms, k, wideK);
  const strict = ranked.every.map((r) => ({
    type,
    rowid: r.rowid,
    score: -r.bm25,
  }));
  if (strict.length >= k || queries.terms.length === 1) return strict;
  const seen = new Set(strict.map((c) => c.rowid));
  const wide = ranked.any
    .filter((r) => !seen.has(r.rowid))
    .map((r) => ({ type, rowid: r.rowid, score: -r.bm25 }));
  return [...strict, ...wide];
}

/** Each given message with the one before it and the one after it in its thread (plan tests). */
export const NEIGHBOURS_SQL = `
  SELECT m.id AS rowid,
    (SELECT p.id FROM messages p
     WHERE p.thread_id = m.thread_id AND p.created_at <= m.created_at
       AND (p.created_at < m.created_at OR p.id < m.id)
     ORDER BY p.created_at DESC, p.id DESC LIMIT 1) AS previous,
    (SELECT n.id FROM messages n
     WHERE n.thread_id = m.thread_id AND n.created_at >= m.created_at
       AND (n.created_at > m.created_at OR n.id > m.id)
     ORDER BY n.created_at, n.id LIMIT 1) AS next
  FROM json_each(@ids) c JOIN messages m ON m.id = c.value`;

/** Which of the given messages pass the filters. */
const PASSES_FILTERS_SQL = `SELECT x.id AS rowid FROM json_each(@ids) c JOIN messages x ON x.id = c.value
  WHERE 1 ${filtersSql('message')}`;

interface InContext extends Pooled {
  previous: number | null;
  next: number | null;
  /** What of `score` came from its neighbours, and from word coverage. */
  context: number;
  words: number;
}

interface Neighbours {
  previous: number | null;
  next: number | null;
}

/** The neighbours of every hit, in one statement. */
function neighboursOf(ctx: BrainContext, hits: Pooled[]): Map<number, Neighbours> {
  // Rows as arrays: a hundred row objects cost more to build than the statement's seeks.
  const rows = ctx.q
    .get<[{ ids: string }], [number, number | null, number | null]>(NEIGHBOURS_SQL)
    .raw()
    .all({ ids: JSON.stringify(hits.map((h) => h.rowid)) });
  const neighbours = new Map<number, Neighbours>();
  for (const [rowid, previous, next] of rows) neighbours.set(rowid, { previous, next });
  return neighbours;
}

/** The neighbours that pass the filters (all of them when none is set), in one statement. */
function passingFilters(
  ctx: BrainContext,
  ids: number[],
  filters: SearchFilters,
): (rowid: number) => boolean {
  // A neighbour shares its hit's thread, and the hit is not in the thread left out: only a
  // person's filters (time, thread, agent) can refuse it.
  if (!narrowed(filters) || ids.length === 0) return () => true;
  const passing = new Set(
    ctx.q
      .get<[SearchFilters & { ids: string }], { rowid: number }>(PASSES_FILTERS_SQL)
      .all({ ...filters, ids: JSON.stringify(ids) })
      .map((r) => r.rowid),
  );
  return (rowid) => passing.has(rowid);
}

/** The neighbours that are not hits themselves, each once. */
function outsideHits(neighbours: Map<number, Neighbours>, hits: Map<number, unknown>): number[] {
  const ids = new Set<number>();
  for (const n of neighbours.values()) {
    if (n.next !== null && !hits.has(n.next)) ids.add(n.next);
    if (n.previous !== null && !hits.has(n.previous)) ids.add(n.previous);
  }
  return [...ids];
}

/**
 * A message is found through its context (DESIGN): "yes, last week" means little alone, and
 * neither does the question it answers. Each message gains a share of the scores of its
 * neighbours in the thread, so a reply is found by the words of its question.
 */
function withContext(ctx: BrainContext, hits: Pooled[], filters: SearchFilters): InContext[] {
  const byRow = new Map<number, InContext>();
  // Field by field: spreading a hundred hits into new objects costs more than the whole step's
  // arithmetic.
  for (const h of hits) {
    byRow.set(h.rowid, {
      type: h.type,
      rowid: h.rowid,
      score: h.score,
      previous: null,
      next: null,
      context: 0,
      words: 0,
    });
  }
  const neighbours = neighboursOf(ctx, hits);
  const passes = passingFilters(ctx, outsideHits(neighbours, byRow), filters);
  const gain = (rowid: number, share: number): InContext | undefined => {
    let c = byRow.get(rowid);
    if (!c) {
      if (!passes(rowid)) return undefined;
      c = { type: 'message', rowid, score: 0, previous: null, next: null, context: 0, words: 0 };
      byRow.set(rowid, c);
    }
    c.score += share;
    c.context += share;
    return c;
  };
  for (const hit of hits) {
    const n = neighbours.get(hit.rowid);
    const self = byRow.get(hit.rowid)!;
    self.previous = n?.previous ?? null;
    self.next = n?.next ?? null;
    // The hit is the previous message of its next, and the next message of its previous.
    if (self.next !== null) {
      const next = gain(self.next, CONTEXT_WEIGHTS.previous * hit.score);
      if (next) next.previous ??= hit.rowid;
    }
    if (self.previous !== null) {
      const previous = gain(self.previous, CONTEXT_WEIGHTS.next * hit.score);
      if (previous) previous.next ??= hit.rowid;
    }
  }
  return [...byRow.values()];
}

/** The words of the given messages, as the index holds them (migration 0003). */
const WORDS_SQL = `
  SELECT s.id AS rowid, s.subject || ' ' || s.body || ' ' || s.sender || ' ' || s.date AS text
  FROM json_each(?) c JOIN messages_search s ON s.id = c.value`;

/**
 * Which of the query's words each message read so far holds (rowid → indexes into its words):
 * kept for one search, whose lists (the whole ranking, a period's, some conversations') cover
 * many of the same messages.
 */
export type WordsHeld = Map<number, Set<number>>;

/**
 * BM25 sums over words, so a message and its neighbours holding the same word twice score like
 * one holding two different words of the query. Count instead how many of the query's words each
 * message has in itself or its neighbours, and add a bonus for each.
 */
function addWordCoverage(
  ctx: BrainContext,
  candidates: InContext[],
  terms: string[],
  holds: WordsHeld,
): void {
  if (terms.length < 2 || candidates.length === 0) return;
  const ids = new Set<number>();
  const unread = (id: number) => {
    if (!holds.has(id)) ids.add(id);
  };
  for (const c of candidates) {
    unread(c.rowid);
    if (c.previous !== null) unread(c.previous);
    if (c.next !== null) unread(c.next);
  }
  const stems = terms.map(roughStem);
  const read =
    ids.size === 0
      ? []
      : ctx.q
          .get<[string], [number, string]>(WORDS_SQL)
          .raw()
          .all(JSON.stringify([...ids]));
  for (const [rowid, words] of read) {
    const text = normalized(words);
    const held = new Set<number>();
    stems.forEach((stem, i) => {
      if (holdsStem(text, stem)) held.add(i);
    });
    holds.set(rowid, held);
  }
  for (const c of candidates) {
    const found = new Set<number>();
    for (const id of [c.rowid, c.previous, c.next]) {
      for (const i of (id !== null && holds.get(id)) || []) found.add(i);
    }
    c.score += CONTEXT_WEIGHTS.perWord * found.size;
    c.words += CONTEXT_WEIGHTS.perWord * found.size;
  }
}

/**
 * Word coverage for the messages that can still reach the first `n` of the pool: those returned.
 * Coverage only raises scores, by at most `bonus`: a message that would stay below the n-th score
 * even with all of it cannot reach the first n, and its words are not read. When only the first
 * `shown` of the list are shown, in its order, n is `shown`: a message left out then could only
 * have ranked below them. The n best by their own score are covered first: the n-th score of the
 * pool then (no score above what it ends at) is a higher bar for the rest, and most of them need
 * not be read (a query of common words reads the words of a few dozen messages instead of ~250).
 */
function coverWords(
  ctx: BrainContext,
  pool: Pooled[],
  messages: InContext[],
  terms: string[],
  n: number,
  holds: WordsHeld,
): Set<Pooled> {
  const bonus = terms.length < 2 ? 0 : CONTEXT_WEIGHTS.perWord * terms.length;
  if (bonus === 0) return new Set(messages);
  const reaching = (c: InContext, bar: number | undefined) =>
    bar === undefined || c.score + bonus >= bar;
  const before = kthScore(pool, n);
  const candidates = messages.filter((c) => reaching(c, before));
  const first = new Set([...candidates].sort((a, b) => b.score - a.score).slice(0, n));
  addWordCoverage(ctx, [...first], terms, holds);
  const bar = kthScore(pool, n);
  const rest = candidates.filter((c) => !first.has(c) && reaching(c, bar));
  addWordCoverage(ctx, rest, terms, holds);
  return new Set<Pooled>([...first, ...rest]);
}

/** The k-th highest score, or undefined when there are fewer than k. */
function kthScore(pool: Pooled[], k: number): number | undefined {
  if (pool.length < k) return undefined;
  return pool
    .map((c) => c.score)
    .sort((a, b) => b - a)
    .at(k - 1);
}

/**
 * BM25 over each type's FTS index: all terms first, widened to any term when that finds fewer
 * than k; messages then take their context into account.
 */
export function ftsRetrieve(
  ctx: BrainContext,
  queries: FtsQueries,
  types: readonly SearchType[],
  filters: SearchFilters,
  k: number,
  options: { shown?: number; held?: WordsHeld } = {},
): Candidate[] {
  let messages: InContext[] = [];
  let pool = types.flatMap((type): Pooled[] => {
    // STM entries and atoms when only the first `shown` of the list are shown, in its order (no
    // vectors, no agent named to lift a hit): nothing re-scores them, so one below the best
    // `shown` of its own type cannot be among those shown, nor rank above one of them. Rows
    // holding every word are ranked `k` deep all the same: whether the list widens to rows
    // holding any word is decided as it would be.
    const wide = type === 'message' ? k : Math.min(k, options.shown ?? k);
    const hits = retrieveType(ctx, type, queries, filters, k, wide);
    if (type !== 'message') return hits;
    messages = withContext(ctx, hits, filters);
    return messages;
  });
  const held = options.held ?? new Map();
  const kept = coverWords(
    ctx,
    pool,
    messages,
    queries.terms,
    Math.min(k, options.shown ?? k),
    held,
  );
  if (kept.size < messages.length) pool = pool.filter((c) => c.type !== 'message' || kept.has(c));
  pool.sort((a, b) => b.score - a.score);
  return pool.slice(0, k).map((c, i) => {
    const candidate: Candidate = { type: c.type, rowid: c.rowid, score: c.score, rank: i + 1 };
    if ('context' in c) {
      const { context, words } = c as InContext;
      candidate.parts = { bm25: c.score - context - words, context, words };
    }
    return candidate;
  });
}
