import type { BrainContext } from '../context.js';
import { hasRankFunction } from '../db/rank-extension.js';
import type { SearchType } from '../validation.js';
import { pruneTopK, type Counted, type Ranked } from './bm25-top-k.js';
import { idf, upperBound } from './bm25.js';
import { quoteTerm } from './fts-query.js';
import { FTS_TABLES, MESSAGE_FIELDS } from './fts-tables.js';
import { IMPACTS_KEEP, impactsBound, impactsTopK, type ImpactsIndex } from './impacts.js';
import { postingsTopK, type PostingsRanked } from './postings.js';
import type { ThreadRows } from './rank-caches.js';
import { createWordCounter, type WordCounter } from './word-counts.js';

/*
 * Ranking by words: the exact best k by BM25 of an index's rows holding a query's words, ties to
 * the older row, and the one module the rest of search ranks through.
 *
 * One route: the compiled top k (brain_topk, src/native/brain_topk.c, through postings.ts), which
 * scores every row of the words' posting lists kept in memory. One fallback, where the compiled
 * extension is absent (openBrain's `rankFunction: false`, or no native build): FTS5's bm25() in a
 * statement that scores every match. What the compiled top k leaves to statements (a person's
 * filters, which need each match's base row; a write transaction, whose rows may yet be rolled
 * back; a process that has not warmed its search, asked about words of long lists it would read
 * for one query) is ranked by brain_bm25 statements given each word's row count (word-counts.ts),
 * pruned by MaxScore (bm25-top-k.ts), one common word from its score classes (impacts.ts): the
 * same order as bm25(), without scoring every match. On a big brain, a new connection's first
 * searches cost less that way than reading every long list they touch (bench/exact-top-k.ts).
 */

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
  /**
   * Messages of these threads only: a JSON array of their row ids (the ranking's list of the
   * conversations of the people a query names; knowledge is not narrowed by it).
   */
  within_threads: string | null;
  /** 1: messages of archived threads are left out (knowledge derived from them is not). */
  exclude_archived: 1 | null;
  /** Now, in milliseconds: STM entries expire against it. */
  now_ms: number;
}

interface FtsSource {
  table: string;
  base: string;
  /** bm25 column weights, in the index's column order. */
  weights: string;
  /** The filters, on the base row `x`. */
  where: string;
}

/**
 * STM entries and atoms: filtered by their own time and agent, and by their source's thread. The
 * time window matches when it was learned (record time) or when what it says happened (event time,
 * NULL when unknown, which no comparison matches).
 */
const KNOWLEDGE_FILTERS = `AND (((@since_ms IS NULL OR x.created_at >= @since_ms)
          AND (@until_ms IS NULL OR x.created_at < @until_ms))
        OR (x.occurred_at >= coalesce(@since_ms, x.occurred_at)
          AND x.occurred_at < coalesce(@until_ms, x.occurred_at + 1)))
      AND (@thread IS NULL OR x.source_message_id IN (SELECT id FROM messages WHERE thread_id = @thread))
      AND (@agent IS NULL OR x.agent_id = @agent)`;

/** The threads the idle maintainer archived (src/maintenance/): few, read once per statement. */
export const ARCHIVED_THREADS = `SELECT id FROM threads WHERE status = 'archived'`;

const SOURCES: Record<SearchType, FtsSource> = {
  // subject, body, sender ("nova to everyone"), date ("8 May 2023"): migration 0003.
  message: {
    table: FTS_TABLES.message,
    base: 'messages',
    weights: Object.values(MESSAGE_FIELDS)
      .map((w) => w.toFixed(1))
      .join(', '),
    where: `AND (@since_ms IS NULL OR x.created_at >= @since_ms)
      AND (@until_ms IS NULL OR x.created_at < @until_ms)
      AND (@thread IS NULL OR x.thread_id = @thread)
      AND (@exclude_thread IS NULL OR x.thread_id != @exclude_thread)
      AND (@exclude_archived IS NULL OR x.thread_id NOT IN (${ARCHIVED_THREADS}))
      AND (@agent IS NULL OR x.from_agent = @agent)
      AND (@within_threads IS NULL
        OR x.thread_id IN (SELECT value FROM json_each(@within_threads)))`,
  },
  stm: {
    table: FTS_TABLES.stm,
    base: 'stm',
    weights: '1.0',
    where: `AND (x.expires_at IS NULL OR x.expires_at > @now_ms) AND x.superseded_by IS NULL ${KNOWLEDGE_FILTERS}`,
  },
  atom: {
    table: FTS_TABLES.atom,
    base: 'atoms',
    weights: '2.0, 1.0, 1.0, 1.0',
    where: KNOWLEDGE_FILTERS,
  },
};

/** Whether a person's filters are set: then each match's base row decides whether it counts. */
export function narrowed(filters: SearchFilters): boolean {
  return (
    filters.since !== null ||
    filters.until !== null ||
    filters.thread !== null ||
    filters.agent !== null ||
    filters.within_threads !== null ||
    filters.exclude_archived !== null
  );
}

/** The filters of a type's rows, on its base row `x`, as `AND …` clauses. */
export function filtersSql(type: SearchType): string {
  return SOURCES[type].where;
}

/**
 * The best k rows of a type's index holding every term and, when fewer than k do, the best `wide`
 * of those holding any (none for one term), by exact BM25, less what the filters leave out.
 */
export function rankWords(
  ctx: BrainContext,
  type: SearchType,
  filters: SearchFilters,
  terms: string[],
  k: number,
  wide: number,
): PostingsRanked {
  if (!hasRankFunction(ctx.db)) return byStatements(ctx, type, filters, 'bm25', terms, k, wide);
  const counter = createWordCounter(ctx, type);
  return (
    compiledTopK(ctx, type, filters, counter, terms, k, wide) ??
    byStatements(ctx, type, filters, 'brain_bm25', terms, k, wide, counter)
  );
}

type Params = SearchFilters & { match: string };

/** Which of the ranked rows to keep, in their order. */
type Keep = (ranked: Ranked[]) => Ranked[];

/**
 * The best k of the rows holding every term and, when fewer than k do, the best `wide` of those
 * holding any, from the words' posting lists in memory (postings.ts), the filters applied as the
 * statements apply them. One term's rows are ranked as rows holding any (the same rows, summed
 * alike), which walks its list without looking for other words. Undefined when statements must
 * answer: a person's filters, a write transaction, lists too long to read here, too few rows left
 * once some are dropped.
 */
function compiledTopK(
  ctx: BrainContext,
  type: SearchType,
  filters: SearchFilters,
  counter: WordCounter,
  terms: string[],
  k: number,
  wide: number,
): PostingsRanked | undefined {
  const one = terms.length === 1;
  const top = (
    every: number,
    any: number,
    excluded?: Buffer,
    included?: Buffer,
  ): PostingsRanked | undefined => {
    const ranked = postingsTopK(ctx, {
      // The conversations of the people a query names are ranked as a brain of their own.
      own: included !== undefined && filters.within_threads !== null,
      table: SOURCES[type].table,
      weights: SOURCES[type].weights,
      terms,
      counts: () => terms.map((t) => counter.count(t)),
      k: one ? 0 : every,
      wide: one ? every : any,
      excluded,
      included,
      epoch: counter.epoch(),
      // Among a few rows, reading the words' lists costs less than the filtered statement, which
      // reads every match with its row: even a process that searches once reads them.
      ...(included ? { reads: -1 } : {}),
    });
    return ranked && one ? { every: ranked.any, any: [] } : ranked;
  };
  if (narrowed(filters)) {
    const among = type === 'message' ? allowedMessages(ctx, filters) : undefined;
    return among && top(k, wide, undefined, among);
  }
  // The best 2k and 2·wide, less what `keep` refuses: enough unless too few are left.
  const dropping = (keep: Keep): PostingsRanked | undefined => {
    const best = top(2 * k, 2 * wide);
    const every = best && keptOf(best.every, k, 2 * k, keep);
    if (!best || !every) return undefined;
    if (every.length >= k || one) return { every, any: [] };
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
}

/** Each term's idf in a type's index, as the ranking weighs it (explain.ts shares scores by it). */
export function termIdfs(ctx: BrainContext, type: SearchType, terms: string[]): number[] {
  const counter = createWordCounter(ctx, type);
  const rows = counter.rows();
  return terms.map((t) => idf(rows, counter.count(t)));
}

/** The most messages a filter may let through for the compiled top k to rank among them. */
export const ALLOWED_ROWS = 20_000;

const ALLOWED_SQL = {
  time: `SELECT id FROM messages
    WHERE created_at >= coalesce(@since_ms, -1e18) AND created_at < coalesce(@until_ms, 1e18)
    LIMIT @n`,
  threads: `SELECT x.id FROM messages x
    WHERE x.thread_id IN (SELECT value FROM json_each(@within_threads)) ${SOURCES.message.where}
    LIMIT @n`,
};

/**
 * The messages a time window or a set of threads lets through, as the compiled top k takes them
 * (ascending rowids, native doubles), when they are few and nothing else filters: each is then
 * sought in the words' lists instead of every match being read with its row, as the filtered
 * statement does. Undefined otherwise (the statements rank).
 */
function allowedMessages(ctx: BrainContext, filters: SearchFilters): Buffer | undefined {
  const { thread, exclude_thread, agent, exclude_archived } = filters;
  // Some threads are few rows, whatever else filters them: the statement lists them with every
  // filter. A time window alone may be most of the brain: listed only when nothing else filters.
  const others =
    thread !== null || exclude_thread !== null || agent !== null || exclude_archived !== null;
  if (filters.within_threads === null && others) return undefined;
  const sql = filters.within_threads === null ? ALLOWED_SQL.time : ALLOWED_SQL.threads;
  const ids = ctx.q
    .get<[SearchFilters & { n: number }], number>(sql)
    .pluck()
    .all({ ...filters, n: ALLOWED_ROWS + 1 });
  if (ids.length > ALLOWED_ROWS) return undefined;
  return Buffer.from(Float64Array.from(ids).sort().buffer);
}

/** The best k of every term's rows, then of any term's when fewer, by rank statements. */
function byStatements(
  ctx: BrainContext,
  type: SearchType,
  filters: SearchFilters,
  scorer: Scorer,
  terms: string[],
  k: number,
  wide: number,
  counter?: WordCounter,
): PostingsRanked {
  const ranker = statementRanker(ctx, type, filters, scorer, counter);
  const every = ranker.rank(terms, 'all', k);
  return {
    every,
    any: every.length >= k || terms.length === 1 ? [] : ranker.rank(terms, 'any', wide),
  };
}

/**
 * Rank statements: bm25() scores every match; brain_bm25, given each word's exact row count
 * (word-counts.ts), scores the rows holding all the words (few) and ranks those holding any with
 * MaxScore pruning (bm25-top-k.ts): only the rows of the words that could still lift a row into
 * the top k are scored, by every word.
 */
function statementRanker(
  ctx: BrainContext,
  type: SearchType,
  filters: SearchFilters,
  scorer: Scorer,
  counter = createWordCounter(ctx, type),
) {
  const rankStmt = (variant: 'bare' | 'filtered') =>
    ctx.q.get<[Params & { k: number; df: Buffer }], Ranked>(RANK_SQL[scorer][type][variant]);
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
  const run = (
    match: string,
    df: Buffer,
    k: number,
    word?: { term: string; df: number },
  ): Ranked[] => {
    const params = { ...filters, match, k, df };
    if (narrowed(filters)) return rankStmt('filtered').all(params);
    if (type === 'message' && filters.exclude_thread !== null) {
      const id = filters.exclude_thread;
      return bareThenDrop(params, (best) => outsideThread(ctx, best, id), word);
    }
    // STM's expiry hides few entries.
    if (type === 'stm')
      return bareThenDrop(params, (best) => unexpired(ctx, best, filters.now_ms), word);
    return bare(params, word);
  };
  return {
    /** The best k of the rows holding every term (`all`) or any of them (`any`). */
    rank(terms: string[], op: 'all' | 'any', k: number): Ranked[] {
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
    },
  };
}

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

/** A thread of more messages is left out by dropping its rows from the best, not by listing them. */
export const OUTSIDE_ROWS = 100_000;

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
  const rows: ThreadRows = { ids, sorted: Float64Array.from(ids) };
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

/** The given STM entries that hold (not expired, not superseded), in their order (plan tests). */
export const UNEXPIRED_SQL = `SELECT x.id AS rowid FROM json_each(@ids) c JOIN stm x ON x.id = c.value
  WHERE (x.expires_at IS NULL OR x.expires_at > @now_ms) AND x.superseded_by IS NULL`;

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
