import type { BrainContext } from '../context.js';
import { forBitIndex, toVector } from '../embed/store.js';
import type { SearchType } from '../validation.js';
import type { Candidate } from './fts.js';
import type { SearchFilters } from './rank.js';

/**
 * Up to this many vectors of a type, every one that passes the filters is re-scored: the search is
 * exact. Beyond, the 1-bit index proposes OVERSAMPLE candidates per wanted hit (at least
 * MIN_COARSE): at 100,000 vectors the 1-bit scan costs ~0.13 ms per candidate asked for, so
 * this is a trade of exactness at scale for speed (bench/vector-search.ts, bench/HISTORY.md).
 */
const EXACT_MAX = 4096; // also the most vec0 returns from one k-nearest-neighbour query
const OVERSAMPLE = 1.25;
const MIN_COARSE = 64;

function coarseK(ctx: BrainContext, type: SearchType, k: number): number {
  // Counting stops past EXACT_MAX, so this costs the same at a million vectors as at 5,000.
  const n = ctx.q
    .get<[string, number], { n: number }>(
      `SELECT count(*) AS n FROM (SELECT 1 FROM embeddings WHERE item_type = ? LIMIT ?)`,
    )
    .get(type, EXACT_MAX + 1)!.n;
  if (n <= EXACT_MAX) return Math.max(1, n);
  return Math.min(EXACT_MAX, Math.max(MIN_COARSE, Math.ceil(k * OVERSAMPLE)));
}

interface CoarseRow {
  rowid: number;
}

/**
 * The k-NN query on the 1-bit index with every filter inside it (vec0 metadata columns), so that
 * a filter never loses hits to the top-k cut. The SQL depends on which filters are set.
 */
function coarseSql(type: SearchType, filters: SearchFilters): string {
  const where = [`embedding MATCH vec_quantize_binary(@query)`, `k = @k`, `item_type = '${type}'`];
  if (filters.since !== null) where.push(`created_ms >= @since_ms`);
  if (filters.until !== null) where.push(`created_ms < @until_ms`);
  if (filters.thread !== null) where.push(`thread_id = @thread`);
  if (type === 'message' && filters.exclude_thread !== null)
    where.push(`thread_id != @exclude_thread`);
  if (filters.agent !== null) where.push(`agent_id = @agent`);
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
  for (const type of types) {
    const sql = coarseSql(type, filters);
    const bound = Object.fromEntries(
      Object.entries({ ...params, k: int(coarseK(ctx, type, k)) }).filter(([name]) =>
        sql.includes(`@${name}`),
      ),
    );
    for (const { rowid } of ctx.q.get<[Record<string, unknown>], CoarseRow>(sql).all(bound)) {
      const row = vectorOf.get(rowid);
      if (!row) continue;
      const v = toVector(row.vector);
      if (v.length !== query.length) continue;
      scored.push({ type, rowid: row.item_id, score: dot(v, query) });
    }
  }
  const held = holding(ctx, scored, filters.now_ms);
  const kept = held ? scored.filter((c) => c.type !== 'stm' || held.has(c.rowid)) : scored;
  kept.sort((a, b) => b.score - a.score);
  return kept.slice(0, k).map((c, i) => ({ ...c, rank: i + 1 }));
}

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
