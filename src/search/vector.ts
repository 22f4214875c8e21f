import type { BrainContext } from '../context.js';
import { forBitIndex, toVector } from '../embed/store.js';
import type { SearchType } from '../validation.js';
import type { Candidate } from './fts.js';
import { ARCHIVED_THREADS, filtersSql, type SearchFilters } from './rank.js';

/**
 * Up to this many vectors of a type, every one that passes the filters is re-scored: the search is
 * exact. Beyond, the 1-bit index proposes OVERSAMPLE candidates per wanted hit (at least
 * MIN_COARSE): at 100,000 vectors the 1-bit scan costs ~0.13 ms per candidate asked for, so
 * this is a trade of exactness at scale for speed (bench/vector-search.ts, bench/HISTORY.md).
 */
const EXACT_MAX = 4096; // also the most vec0 returns from one k-nearest-neighbour query
const OVERSAMPLE = 1.25;
const MIN_COARSE = 64;

function coarseK(ctx: BrainContext, type: SearchType, k: number, unseen: number): number {
  // Counting stops past EXACT_MAX, so this costs the same at a million vectors as at 5,000.
  const n = ctx.q
    .get<[string, number], { n: number }>(
      `SELECT count(*) AS n FROM (SELECT 1 FROM embeddings WHERE item_type = ? LIMIT ?)`,
    )
    .get(type, EXACT_MAX + 1)!.n;
  if (n <= EXACT_MAX) return Math.max(1, n);
  // Candidates dropped after the query (unseen) are asked for on top of those wanted.
  return Math.min(EXACT_MAX, Math.max(MIN_COARSE, Math.ceil(k * OVERSAMPLE)) + unseen);
}

/** The archived threads left out inside the k-NN query (`thread_id != …`), the largest first. */
const ARCHIVED_IN_QUERY = 32;

/**
 * How the k-NN query leaves archived threads out: the index knows a message's thread but not its
 * status, so the largest archived threads are excluded inside the query, each by its id, and the
 * messages of any others are dropped after it (archivedKept), the query asking for that many more.
 */
interface ArchivedPlan {
  ids: number[];
  /** Messages of the archived threads not in `ids`, as their rows count them. */
  rest: number;
}

function archivedPlan(ctx: BrainContext): ArchivedPlan {
  const largest = ctx.q
    .get<[number], { id: number; n: number }>(
      `SELECT id, message_count AS n FROM threads WHERE status = 'archived'
       ORDER BY message_count DESC, id LIMIT ?`,
    )
    .all(ARCHIVED_IN_QUERY);
  const all = ctx.q
    .get<[], { n: number }>(
      `SELECT coalesce(sum(message_count), 0) AS n FROM threads WHERE status = 'archived'`,
    )
    .get()!.n;
  return { ids: largest.map((r) => r.id), rest: all - largest.reduce((sum, r) => sum + r.n, 0) };
}

interface CoarseRow {
  rowid: number;
}

/**
 * The k-NN query on the 1-bit index with every filter inside it (vec0 metadata columns), so that
 * a filter never loses hits to the top-k cut. The SQL depends on which filters are set.
 */
function coarseSql(type: SearchType, filters: SearchFilters, archived: number): string {
  const where = [`embedding MATCH vec_quantize_binary(@query)`, `k = @k`, `item_type = '${type}'`];
  // Knowledge matches a window by its event time too: those entries come from eventCandidates.
  if (filters.since !== null) where.push(`created_ms >= @since_ms`);
  if (filters.until !== null) where.push(`created_ms < @until_ms`);
  if (filters.thread !== null) where.push(`thread_id = @thread`);
  if (type === 'message' && filters.exclude_thread !== null)
    where.push(`thread_id != @exclude_thread`);
  if (filters.agent !== null) where.push(`agent_id = @agent`);
  for (let i = 0; i < archived; i++) where.push(`thread_id != @archived_${i}`);
  if (type === 'stm') where.push(`expires_ms > @now_ms`);
  return `SELECT rowid FROM vec_index WHERE ${where.join(' AND ')}`;
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/**
 * Nearest items to a query vector (unit length, of the brain's space): candidates from the 1-bit
 * index, re-scored by exact cosine similarity on the stored float vectors. Score: the cosine.
 */
export function vectorRetrieve(
  ctx: BrainContext,
  query: Float32Array,
  types: readonly SearchType[],
  filters: SearchFilters,
  k: number,
): Candidate[] {
  // vec0 wants integers as BigInt.
  const int = (x: number | null) => (x === null ? null : BigInt(x));
  const params = {
    query: forBitIndex(query),
    since_ms: int(filters.since_ms),
    until_ms: int(filters.until_ms),
    thread: int(filters.thread),
    exclude_thread: int(filters.exclude_thread),
    agent: int(filters.agent),
    now_ms: int(filters.now_ms),
  };
  const vectorOf = ctx.q.get<[number], { item_id: number; vector: Buffer }>(
    `SELECT item_id, vector FROM embeddings WHERE id = ?`,
  );
  const scored: Array<{ type: SearchType; rowid: number; score: number }> = [];
  const score = (type: SearchType, row: { item_id: number; vector: Buffer }) => {
    const v = toVector(row.vector);
    if (v.length === query.length) scored.push({ type, rowid: row.item_id, score: dot(v, query) });
  };
  for (const type of types) {
    const archived =
      type === 'message' && filters.exclude_archived !== null
        ? archivedPlan(ctx)
        : { ids: [], rest: 0 };
    const sql = coarseSql(type, filters, archived.ids.length);
    const excluded = Object.fromEntries(archived.ids.map((id, i) => [`archived_${i}`, BigInt(id)]));
    const all = { ...params, ...excluded, k: int(coarseK(ctx, type, k, archived.rest)) };
    const bound = Object.fromEntries(
      Object.entries(all).filter(([name]) => sql.includes(`@${name}`)),
    );
    const seen = new Set<number>();
    for (const { rowid } of ctx.q.get<[Record<string, unknown>], CoarseRow>(sql).all(bound)) {
      const row = vectorOf.get(rowid);
      if (!row) continue;
      seen.add(row.item_id);
      score(type, row);
    }
    if (type !== 'message' && (filters.since !== null || filters.until !== null)) {
      for (const row of eventCandidates(ctx, type, filters)) {
        if (!seen.has(row.item_id)) score(type, row);
      }
    }
  }
  const held = holding(ctx, scored, filters.now_ms);
  const active = archivedKept(ctx, scored, filters);
  const kept = scored.filter(
    (c) =>
      (c.type !== 'stm' || !held || held.has(c.rowid)) &&
      (c.type !== 'message' || !active || active.has(c.rowid)),
  );
  kept.sort((a, b) => b.score - a.score);
  return kept.slice(0, k).map((c, i) => ({ ...c, rank: i + 1 }));
}

/**
 * The entries of a type whose event time falls in the window and that pass the other filters, with
 * their vectors: the index keeps only record time, and entries with an event time are few (read
 * through the index on occurred_at), so each is scored exactly rather than searched for.
 */
function eventCandidates(
  ctx: BrainContext,
  type: 'stm' | 'atom',
  filters: SearchFilters,
): Array<{ item_id: number; vector: Buffer }> {
  return ctx.q
    .get<[SearchFilters], { item_id: number; vector: Buffer }>(EVENT_CANDIDATES_SQL[type])
    .all(filters);
}

const eventCandidatesSql = (type: 'stm' | 'atom', table: string) =>
  `SELECT e.item_id, e.vector FROM ${table} x JOIN embeddings e ON e.item_type = '${type}' AND e.item_id = x.id
  WHERE x.occurred_at >= coalesce(@since_ms, -9007199254740991)
    AND x.occurred_at < coalesce(@until_ms, 9007199254740991) ${filtersSql(type)}`;

/** Exported for the plan tests. */
export const EVENT_CANDIDATES_SQL = {
  stm: eventCandidatesSql('stm', 'stm'),
  atom: eventCandidatesSql('atom', 'atoms'),
};

/**
 * Of the messages found, those outside archived threads; undefined when the filter is off or no
 * message was found. The threads not left out inside the k-NN query (see ArchivedPlan) are
 * dropped here, the query having asked for as many more.
 */
function archivedKept(
  ctx: BrainContext,
  scored: ReadonlyArray<{ type: SearchType; rowid: number }>,
  filters: SearchFilters,
): Set<number> | undefined {
  if (filters.exclude_archived === null) return undefined;
  const ids = scored.filter((c) => c.type === 'message').map((c) => c.rowid);
  if (ids.length === 0) return undefined;
  return new Set(
    ctx.q
      .get<[{ ids: string }], { id: number }>(ACTIVE_MESSAGES_SQL)
      .all({ ids: JSON.stringify(ids) })
      .map((r) => r.id),
  );
}

const ACTIVE_MESSAGES_SQL = `SELECT x.id FROM json_each(@ids) c JOIN messages x ON x.id = c.value
  WHERE x.thread_id NOT IN (${ARCHIVED_THREADS})`;

/** Of the STM entries found, those that hold now (see HOLDING_SQL); undefined when none was found. */
function holding(
  ctx: BrainContext,
  scored: ReadonlyArray<{ type: SearchType; rowid: number }>,
  now: number,
): Set<number> | undefined {
  const ids = scored.filter((c) => c.type === 'stm').map((c) => c.rowid);
  if (ids.length === 0) return undefined;
  return new Set(
    ctx.q
      .get<[{ ids: string; now: number }], { id: number }>(HOLDING_SQL)
      .all({ ids: JSON.stringify(ids), now })
      .map((r) => r.id),
  );
}

/**
 * The given STM entries neither superseded nor lapsed. The vector index keeps the expiry an
 * entry had when it was embedded; one superseded, or made to lapse, since is known only here.
 */
const HOLDING_SQL = `SELECT s.id FROM json_each(@ids) c JOIN stm s ON s.id = c.value
  WHERE s.superseded_by IS NULL AND (s.expires_at IS NULL OR s.expires_at > @now)`;
