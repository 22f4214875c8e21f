import type { BrainContext } from '../context.js';
import type { SearchType } from '../validation.js';
import { hasRankFunction } from '../db/rank-extension.js';
import { pruneTopK, type Counted, type Ranked } from './bm25-top-k.js';
import { upperBound } from './bm25.js';
import { createWordCounter } from './word-counts.js';
import { IMPACTS_KEEP, impactsBound, impactsTopK, type ImpactsIndex } from './impacts.js';
import { holdsStem, normalized, quoteTerm, roughStem, type FtsQueries } from './fts-query.js';
import { FTS_TABLES } from './fts-tables.js';
import { postingsTopK, type PostingsRanked } from './postings.js';
import type { ThreadRows } from './rank-caches.js';

/** Filters every retriever applies before it cuts to its top k. Row ids, already resolved. */
export interface SearchFilters {
  since: string | null;
  until: string | null;
  /** since and until in milliseconds, as every time is stored (migrations 0005, 0008, 0009). */
  since_ms: number | null;
  until_ms: number | null;
  thread: number | null;
  /** Messages of this thread are left out (knowledge derived from them is not). */
  exclude_thread: number | null;
  agent: number | null;
  /** Now, in milliseconds: STM entries expire against it. */
  now_ms: number;
}

/** One retrieved row: higher score is better; rank is its 1-based place in its retriever's list. */
export interface Candidate {
  type: SearchType;
  rowid: number;
  score: number;
  rank: number;
}

/**
 * What a message gains from its context: a share of the scores of the message it follows and of
 * the one that answers it, and a bonus for each word of the query found in it or them. Chosen by
 * leave-one-conversation-out cross-validation on the dev set, every fold agreeing
 * (bench/HISTORY.md).
 */
export const CONTEXT_WEIGHTS = { previous: 0.7, next: 0.4, perWord: 2 };

interface FtsSource {
  table: string;
  base: string;
  /** bm25 column weights, in the index's column order. */
  weights: string;
  /** The filters, on the base row `x`. */
  where: string;
}

/** STM entries and atoms: filtered by their own time and agent, and by their source's thread. */
const KNOWLEDGE_FILTERS = `AND (@since_ms IS NULL OR x.created_at >= @since_ms)
      AND (@until_ms IS NULL OR x.created_at < @until_ms)
      AND (@thread IS NULL OR x.source_message_id IN (SELECT id FROM messages WHERE thread_id = @thread))
      AND (@agent IS NULL OR x.agent_id = @agent)`;

const SOURCES: Record<SearchType, FtsSource> = {
  // subject, body, sender ("nova to everyone"), date ("8 May 2023"): migration 0003.
  message: {
    table: FTS_TABLES.message,
    base: 'messages',
    weights: '2.0, 1.0, 1.0, 0.5',
    where: `AND (@since_ms IS NULL OR x.created_at >= @since_ms)
      AND (@until_ms IS NULL OR x.created_at < @until_ms)
      AND (@thread IS NULL OR x.thread_id = @thread)
      AND (@exclude_thread IS NULL OR x.thread_id != @exclude_thread)
      AND (@agent IS NULL OR x.from_agent = @agent)`,
  },
  stm: {
    table: FTS_TABLES.stm,
    base: 'stm',
    weights: '1.0',
    where: `AND (x.expires_at IS NULL OR x.expires_at > @now_ms) ${KNOWLEDGE_FILTERS}`,
  },
  atom: {
    table: FTS_TABLES.atom,
    base: 'atoms',
    weights: '2.0, 1.0, 1.0, 1.0',
    where: KNOWLEDGE_FILTERS,
  },
};

/** Whether a person's filters are set: then each match's base row decides whether it counts. */
function narrowed(filters: SearchFilters): boolean {
  return (
    filters.since !== null ||
    filters.until !== null ||
    filters.thread !== null ||
    filters.agent !== null
  );
}

/** How a rank statement scores: FTS5's bm25(), or brain_bm25 given each word's row count. */
type Scorer = 'bm25' | 'brain_bm25';

/**
 * The best k by BM25 of the rows a MATCH expression chooses, every one of them scored. Ties go to
 * the older row. brain_bm25 scores the phrases it is given counts for (src/search/bm25-top-k.ts).
 */
function rankSql({ table, base, weights, where }: FtsSource, filtered: boolean, scorer: Scorer) {
  const score =
    scorer === 'bm25'
      ? `bm25(${table}, ${weights})`
      : `brain_bm25(${table}, @df, '${table}_docsize', ${weights})`;
  return filtered
    ? `SELECT f.rowid AS rowid, ${score} AS bm25
      FROM ${table} f JOIN ${base} x ON x.id = f.rowid
      WHERE ${table} MATCH @match ${where}
      ORDER BY bm25, f.rowid LIMIT @k`
    : `SELECT rowid, ${score} AS bm25 FROM ${table}
      WHERE ${table} MATCH @match ORDER BY bm25, rowid LIMIT @k`;
}

/** Each type's SQL, with the base table joined for its filters and without. */
type SqlByType = Record<SearchType, { filtered: string; bare: string }>;

/** Exported for the plan tests. */
export const RANK_SQL: Record<Scorer, SqlByType> = {
  bm25: mapSources((source, filtered) => rankSql(source, filtered, 'bm25')),
  brain_bm25: mapSources((source, filtered) => rankSql(source, filtered, 'brain_bm25')),
};

function mapSources(sql: (source: FtsSource, filtered: boolean) => string): SqlByType {
  const both = (source: FtsSource) => ({ filtered: sql(source, true), bare: sql(source, false) });
  return { message: both(SOURCES.message), stm: both(SOURCES.stm), atom: both(SOURCES.atom) };
}

/** bm25's column weights of a type's index, as its rank statements give them. */
export function indexWeights(type: SearchType): string {
  return SOURCES[type].weights;
}

type Params = SearchFilters & { match: string };

/** Which of the ranked rows to keep, in their order. */
type Keep = (ranked: Ranked[]) => Ranked[];

/**
 * The exact best k by BM25 of every match. Rows holding all the words are few and all scored;
 * rows holding any of them are ranked with MaxScore pruning (src/search/bm25-top-k.ts): only the
 * rows of the words that could still lift a row into the top k are scored, by every word. Each
 * word's row count is exact (word-counts.ts).
 */
function createRanker(ctx: BrainContext, type: SearchType, filters: SearchFilters) {
  const scorer: Scorer = hasRankFunction(ctx.db) ? 'brain_bm25' : 'bm25';
  const rankStmt = (variant: 'bare' | 'filtered') =>
    ctx.q.get<[Params & { k: number; df: Buffer }], Ranked>(RANK_SQL[scorer][type][variant]);
  const counter = createWordCounter(ctx, type);
  /**
   * The bare statement's rows, or for one common word the same rows from its classes
   * (impacts.ts), without scoring each row.
   */
  const bare = (
    params: Params & { k: number; df: Buffer },
    word?: { term: string; df: number },
  ) => {
    if (word) {
      const top = impactsTopK(impacts(), word.term, word.df, params.k);
      if (top) return top;
    }
    return rankStmt('bare').all(params);
  };
  let index: ImpactsIndex | undefined;
  const impacts = (): ImpactsIndex =>
    (index ??= {
      ctx,
      type,
      weights: SOURCES[type].weights,
      stats: { ...counter.totals(), epoch: counter.epoch() },
    });
  /**
   * Rank without reading each match's base row, then drop what `keep` refuses among the best 2k,
   * unless that leaves too few: then the filtered statement. The rows left are the filtered
   * ranking's first k, as dropping rows changes no other row's order.
   */
  const bareThenDrop = (
    params: Params & { k: number; df: Buffer },
    keep: Keep,
    word?: { term: string; df: number },
  ): Ranked[] => {
    const n = word ? margin(params.k) : 2 * params.k;
    return (
      keptOf(bare({ ...params, k: n }, word), params.k, n, keep) ?? rankStmt('filtered').all(params)
    );
  };
  /**
   * The best k outside the thread left out. One common word's classes give the best 2k at once:
   * enough when the thread holds few of them. Otherwise brain_bm25_outside ranks the thread's rows
   * last without reading them (a session of thousands of messages), else (no compiled function,
   * or a thread too long to list) the best 2k without the join, then the filtered statement.
   */
  const outsideThreadTop = (
    params: Params & { k: number; df: Buffer },
    id: number,
    word?: { term: string; df: number },
  ): Ranked[] => {
    const size = threadSize(ctx, id);
    if (scorer !== 'brain_bm25' || size > OUTSIDE_ROWS)
      return bareThenDrop(params, (best) => outsideThread(ctx, best, id), word);
    const { sorted, rows } = threadRows(ctx, id, size);
    const n = margin(params.k);
    const best = word && impactsTopK(impacts(), word.term, word.df, n);
    if (best) {
      const kept = best.filter((r) => !rows.has(r.rowid));
      if (kept.length >= params.k || best.length < n) return kept.slice(0, params.k);
    }
    return ctx.q
      .get<[Params & { k: number; df: Buffer; outside: Buffer }], Ranked>(OUTSIDE_RANK_SQL)
      .all({ ...params, outside: Buffer.from(sorted.buffer) })
      .filter((r) => r.bm25 < EXCLUDED_SCORE);
  };
  const run = (
    match: string,
    df: Buffer,
    k: number,
    word?: { term: string; df: number },
  ): Ranked[] => {
    const params = { ...filters, match, k, df };
    if (narrowed(filters)) return rankStmt('filtered').all(params);
    if (type === 'message' && filters.exclude_thread !== null)
      return outsideThreadTop(params, filters.exclude_thread, word);
    // STM's expiry hides few entries.
    if (type === 'stm')
      return bareThenDrop(params, (best) => unexpired(ctx, best, filters.now_ms), word);
    return bare(params, word);
  };
  /**
   * The best k of the rows holding every word and, when fewer than k do, the best `wide` of those
   * holding any, from the words' posting lists in memory (postings.ts), the filters applied as
   * the statements apply them; undefined when those must answer (a person's filters, which need
   * each row's base row; a write transaction; too few rows left once dropped).
   */
  const fromPostings = (terms: string[], k: number, wide: number): PostingsRanked | undefined => {
    if (scorer !== 'brain_bm25' || narrowed(filters)) return undefined;
    const counts = () => terms.map((t) => counter.count(t));
    const top = (every: number, any: number, excluded?: Buffer) =>
      postingsTopK(ctx, {
        table: SOURCES[type].table,
        weights: SOURCES[type].weights,
        terms,
        counts,
        k: every,
        wide: any,
        excluded,
        epoch: counter.epoch(),
      });
    // The best 2k and 2·wide, less what `keep` refuses: enough unless too few are left.
    const dropping = (keep: Keep): PostingsRanked | undefined => {
      const best = top(2 * k, 2 * wide);
      const every = best && keptOf(best.every, k, 2 * k, keep);
      if (!best || !every) return undefined;
      if (every.length >= k) return { every, any: [] };
      const any = keptOf(best.any, wide, 2 * wide, keep);
      return any && { every, any };
    };
    if (type === 'message' && filters.exclude_thread !== null) {
      const id = filters.exclude_thread;
      const size = threadSize(ctx, id);
      if (size > OUTSIDE_ROWS) return dropping((best) => outsideThread(ctx, best, id));
      return top(k, wide, Buffer.from(threadRows(ctx, id, size).sorted.buffer));
    }
    if (type === 'stm') return dropping((best) => unexpired(ctx, best, filters.now_ms));
    return top(k, wide);
  };
  /**
   * The best k of the rows holding every term (`all`) or any of them (`any`), by statements: what
   * `both` falls back to when the lists cannot answer.
   */
  const rank = (terms: string[], op: 'all' | 'any', k: number): Ranked[] => {
    if (scorer === 'bm25') {
      return run(terms.map(quoteTerm).join(op === 'all' ? ' ' : ' OR '), Buffer.alloc(0), k);
    }
    const dfs = terms.map((t) => counter.count(t));
    const df = Buffer.from(Float64Array.from(dfs).buffer);
    if (terms.length === 1) {
      return run(quoteTerm(terms[0]!), df, k, { term: terms[0]!, df: dfs[0]! });
    }
    if (op === 'all') return run(terms.map(quoteTerm).join(' '), df, k);
    // Each word's bound from its classes when it has them (impacts.ts), else idf·(k1+1).
    const bound = (c: Counted) =>
      impactsBound(impacts(), c.term, c.df) ?? upperBound(counter.rows(), c.df);
    // One word's best rows alone, from its classes when it has them (see withOnlyTheLast).
    const single = (c: Counted, n: number) =>
      run(quoteTerm(c.term), Buffer.from(Float64Array.of(c.df).buffer), n, c);
    return pruneTopK(terms, dfs, counter.rows(), k, (match) => run(match, df, k), {
      bound,
      single,
    }).ranked;
  };
  return {
    rank,
    /**
     * The best k rows holding every term and, when fewer than k do, the best `wide` holding any:
     * one pass over the posting lists when they can answer, else a statement for each.
     */
    both(terms: string[], k: number, wide: number): PostingsRanked {
      const inMemory = terms.length > 1 ? fromPostings(terms, k, wide) : undefined;
      if (inMemory) return inMemory;
      const every = rank(terms, 'all', k);
      return {
        every,
        any: every.length >= k || terms.length === 1 ? [] : rank(terms, 'any', wide),
      };
    },
  };
}

/**
 * The first k of `best` that `keep` leaves, `asked` having been asked for; undefined when it left
 * fewer and more may exist (`best` came back full): then only a statement filtering every row can
 * answer. Dropping rows changes no other row's order.
 */
function keptOf(best: Ranked[], k: number, asked: number, keep: Keep): Ranked[] | undefined {
  const kept = keep(best);
  return kept.length >= k || best.length < asked ? kept.slice(0, k) : undefined;
}

/**
 * How many of one word's best rows to take so that k are left once some are dropped: 2k, but no
 * more than its classes keep (impacts.ts), so they can answer (k at least).
 */
function margin(k: number): number {
  return Math.max(k, Math.min(2 * k, IMPACTS_KEEP));
}

/** A thread of more messages is left out by the filtered statement, not by listing its rows. */
export const OUTSIDE_ROWS = 100_000;

/** What brain_bm25_outside gives a row of the thread left out (src/native/brain_fts.c). */
const EXCLUDED_SCORE = 1e299;

/**
 * The best k messages by brain_bm25, those listed in @outside (ascending rowids as native doubles)
 * ranked last, whatever their score (plan tests).
 */
export const OUTSIDE_RANK_SQL = `SELECT rowid,
    brain_bm25_outside(messages_fts, @df, 'messages_fts_docsize', @outside, ${SOURCES.message.weights}) AS bm25
  FROM messages_fts WHERE messages_fts MATCH @match ORDER BY bm25, rowid LIMIT @k`;

/** The messages of a thread, as its row counts them. */
function threadSize(ctx: BrainContext, thread: number): number {
  return (
    ctx.q
      .get<[number], { n: number }>(`SELECT message_count AS n FROM threads WHERE id = ?`)
      .get(thread)?.n ?? 0
  );
}

/** The rows of a thread's messages after a given one (plan tests). */
export const THREAD_ROWS_SQL = `SELECT id FROM messages WHERE thread_id = ? AND id > ?`;

/**
 * The threads left out lately, per connection: a session's thread is left out of every turn's
 * memory search and grows by a message or two a turn, so only the rows after the last one kept are
 * read (from the thread's index). Should the rows kept and those read not add up to the thread's
 * count (a message deleted by hand: the library never deletes one), the thread is read afresh.
 */
const KEPT_THREADS = 16;

function threadRows(ctx: BrainContext, thread: number, count: number): ThreadRows {
  const byThread = ctx.ranking.threads;
  const read = (after: number) =>
    ctx.q
      .get<[number, number], number>(THREAD_ROWS_SQL)
      .pluck()
      .all(thread, after)
      .sort((a, b) => a - b);
  const kept = byThread.get(thread);
  const added = kept ? read(kept.ids.at(-1) ?? 0) : [];
  if (kept && added.length === 0 && kept.ids.length === count) return kept;
  const ids = kept && kept.ids.length + added.length === count ? [...kept.ids, ...added] : read(0);
  const rows: ThreadRows = { ids, sorted: Float64Array.from(ids), rows: new Set(ids) };
  byThread.delete(thread);
  byThread.set(thread, rows);
  if (byThread.size > KEPT_THREADS) byThread.delete(byThread.keys().next().value!);
  return rows;
}

/** The given messages that are not in the thread, in their order (plan tests). */
export const OUTSIDE_THREAD_SQL = `SELECT x.id AS rowid FROM json_each(@ids) c JOIN messages x ON x.id = c.value
  WHERE x.thread_id != @thread`;

function outsideThread(ctx: BrainContext, ranked: Ranked[], thread: number): Ranked[] {
  if (ranked.length === 0) return ranked;
  const outside = new Set(
    ctx.q
      .get<[{ ids: string; thread: number }], { rowid: number }>(OUTSIDE_THREAD_SQL)
      .all({ ids: JSON.stringify(ranked.map((r) => r.rowid)), thread })
      .map((r) => r.rowid),
  );
  return ranked.filter((r) => outside.has(r.rowid));
}

/** The given STM entries that have not expired, in their order (plan tests). */
export const UNEXPIRED_SQL = `SELECT x.id AS rowid FROM json_each(@ids) c JOIN stm x ON x.id = c.value
  WHERE x.expires_at IS NULL OR x.expires_at > @now_ms`;

function unexpired(ctx: BrainContext, ranked: Ranked[], now: number): Ranked[] {
  if (ranked.length === 0) return ranked;
  const live = new Set(
    ctx.q
      .get<[{ ids: string; now_ms: number }], { rowid: number }>(UNEXPIRED_SQL)
      .all({ ids: JSON.stringify(ranked.map((r) => r.rowid)), now_ms: now })
      .map((r) => r.rowid),
  );
  return ranked.filter((r) => live.has(r.rowid));
}

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
    AND x.body LIKE @pattern ${SOURCES.message.where}
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
  const ranked = createRanker(ctx, type, filters).both(queries.terms, k, wideK);
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
  WHERE 1 ${SOURCES.message.where}`;

interface InContext extends Pooled {
  previous: number | null;
  next: number | null;
}

interface Neighbours {
  previous: number | null;
  next: number | null;
}

/** The neighbours of every hit, in one statement. */
function neighboursOf(ctx: BrainContext, hits: Pooled[]): Map<number, Neighbours> {
  const rows = ctx.q
    .get<[{ ids: string }], Neighbours & { rowid: number }>(NEIGHBOURS_SQL)
    .all({ ids: JSON.stringify(hits.map((h) => h.rowid)) });
  return new Map(rows.map((r) => [r.rowid, r]));
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

/**
 * A message is found through its context (DESIGN): "yes, last week" means little alone, and
 * neither does the question it answers. Each message gains a share of the scores of its
 * neighbours in the thread, so a reply is found by the words of its question.
 */
function withContext(ctx: BrainContext, hits: Pooled[], filters: SearchFilters): InContext[] {
  const byRow = new Map<number, InContext>(
    hits.map((h) => [h.rowid, { ...h, previous: null, next: null }]),
  );
  const neighbours = neighboursOf(ctx, hits);
  const found = [...neighbours.values()].flatMap((n) => [n.next, n.previous]);
  const passes = passingFilters(
    ctx,
    [...new Set(found)].filter((id): id is number => id !== null && !byRow.has(id)),
    filters,
  );
  const gain = (rowid: number, share: number): InContext | undefined => {
    let c = byRow.get(rowid);
    if (!c) {
      if (!passes(rowid)) return undefined;
      c = { type: 'message', rowid, score: 0, previous: null, next: null };
      byRow.set(rowid, c);
    }
    c.score += share;
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
 * BM25 sums over words, so a message and its neighbours holding the same word twice score like
 * one holding two different words of the query. Count instead how many of the query's words each
 * message has in itself or its neighbours, and add a bonus for each.
 */
function addWordCoverage(ctx: BrainContext, candidates: InContext[], terms: string[]): void {
  if (terms.length < 2 || candidates.length === 0) return;
  const ids = new Set<number>();
  for (const c of candidates) {
    ids.add(c.rowid);
    if (c.previous !== null) ids.add(c.previous);
    if (c.next !== null) ids.add(c.next);
  }
  const stems = terms.map(roughStem);
  const holds = new Map<number, Set<number>>(); // rowid → indexes of the query's words it holds
  for (const row of ctx.q
    .get<[string], { rowid: number; text: string }>(WORDS_SQL)
    .all(JSON.stringify([...ids]))) {
    const text = normalized(row.text);
    const held = new Set<number>();
    stems.forEach((stem, i) => {
      if (holdsStem(text, stem)) held.add(i);
    });
    holds.set(row.rowid, held);
  }
  for (const c of candidates) {
    const found = new Set<number>();
    for (const id of [c.rowid, c.previous, c.next]) {
      for (const i of (id !== null && holds.get(id)) || []) found.add(i);
    }
    c.score += CONTEXT_WEIGHTS.perWord * found.size;
  }
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
  options: { shown?: number } = {},
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
  // Word coverage only raises scores, by at most `bonus`: a message that would stay below the
  // k-th score even with all of it cannot reach the top k, and is left out before its words are
  // read. When only the first `shown` of the list are shown, in its order, the shown-th score is
  // the bar: a message left out then could only have ranked below them.
  const bonus = queries.terms.length < 2 ? 0 : CONTEXT_WEIGHTS.perWord * queries.terms.length;
  const cut = kthScore(pool, Math.min(k, options.shown ?? k));
  if (cut !== undefined && bonus > 0) {
    const out = new Set<Pooled>(messages.filter((c) => c.score + bonus < cut));
    pool = pool.filter((c) => !out.has(c));
    messages = messages.filter((c) => !out.has(c));
  }
  addWordCoverage(ctx, messages, queries.terms);
  pool.sort((a, b) => b.score - a.score);
  return pool
    .slice(0, k)
    .map((c, i) => ({ type: c.type, rowid: c.rowid, score: c.score, rank: i + 1 }));
}
