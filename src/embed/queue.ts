import type { BrainContext } from '../context.js';
import type { SearchType } from '../validation.js';
import { buildDocument, type EmbedDocument } from './documents.js';
import { EMBEDDED_KINDS } from './kinds.js';
import { EmbedderError, type Embedder } from './embedder.js';
import { ensureSpace, readSpace, requeueAll, storeVector, storedHash } from './store.js';

export interface QueueStatus {
  /** Waiting for their first try. */
  pending: number;
  /** Tried and failed at least once; retried with backoff. */
  failed: number;
  /** Items with a vector of the current model. */
  embedded: number;
  model: string | null;
  dimension: number | null;
  /** The most recent failure, if any item is failing. */
  last_error: string | null;
}

/** Items above the cursors, not yet handed to a drainer: O(their number), by rowid. */
const UNCLAIMED_SQL = `SELECT ${EMBEDDED_KINDS.map(
  ([kind, table]) =>
    `(SELECT count(*) FROM ${table} WHERE id > (SELECT last_id FROM embed_cursor WHERE item_type = '${kind}'))`,
).join(' + ')} AS n`;

function unclaimed(ctx: BrainContext): number {
  return ctx.q.get<[], { n: number }>(UNCLAIMED_SQL).get()!.n;
}

export function queueStatus(ctx: BrainContext): QueueStatus {
  const counts = ctx.q
    .get<[], { pending: number; failed: number }>(
      `SELECT coalesce(sum(attempts = 0), 0) AS pending, coalesce(sum(attempts > 0), 0) AS failed FROM embed_queue`,
    )
    .get()!;
  counts.pending += unclaimed(ctx);
  const space = readSpace(ctx);
  const embedded = ctx.q.get<[], { n: number }>(`SELECT count(*) AS n FROM embeddings`).get()!.n;
  const lastError = ctx.q
    .get<[], { last_error: string }>(
      `SELECT last_error FROM embed_queue WHERE attempts > 0 ORDER BY retry_at DESC LIMIT 1`,
    )
    .get();
  return {
    pending: counts.pending,
    failed: counts.failed,
    embedded,
    model: space?.model ?? null,
    dimension: space?.dimension ?? null,
    last_error: lastError?.last_error ?? null,
  };
}

export interface DrainOptions {
  signal?: AbortSignal;
  /** Texts per call to the embedder; defaults to the embedder's own. */
  batchSize?: number;
  /** Stop after this many items (for tests and small steps). */
  maxItems?: number;
  /** After each batch: what this pass has done so far. */
  onProgress?: (progress: DrainProgress) => void;
}

export interface DrainProgress {
  /** Items taken from the queue so far (embedded, unchanged, gone or failed). */
  done: number;
  embedded: number;
  failed: number;
}

export interface DrainResult {
  embedded: number;
  /** Items whose embedding failed in this pass; they stay queued for a later try. */
  failed: number;
  /** Items found unchanged since their last vector (no call to the model). */
  unchanged: number;
  /** Set when the pass stopped early because the embedder could not be reached. */
  stopped_by: string | null;
  errors: string[];
}

interface QueueRow {
  id: number;
  item_type: SearchType;
  item_id: number;
  attempts: number;
}

/** How long a claimed row stays out of other drainers' reach. */
const LEASE_MS = 10 * 60_000;

/** 10 s, 20 s, 40 s, … up to an hour between tries of a failing item. */
export function backoffMs(attempts: number): number {
  return Math.min(3_600_000, 10_000 * 2 ** Math.max(0, attempts - 1));
}

/**
 * Move up to `room` items above the cursors onto the queue, leased until `until`: the cursors
 * pass them, so no other drainer takes them; a crash leaves leased rows that are retried later.
 */
function claimNew(ctx: BrainContext, room: number, nowMs: number, until: number): QueueRow[] {
  const rows: QueueRow[] = [];
  for (const [kind, table] of EMBEDDED_KINDS) {
    if (rows.length >= room) break;
    const ids = ctx.q
      .get<[string, number], { id: number }>(
        `SELECT id FROM ${table} WHERE id > (SELECT last_id FROM embed_cursor WHERE item_type = ?) ORDER BY id LIMIT ?`,
      )
      .all(kind, room - rows.length)
      .map((r) => r.id);
    if (ids.length === 0) continue;
    const lease = ctx.q.get<[string, number, number, number], QueueRow>(
      `INSERT OR IGNORE INTO embed_queue (item_type, item_id, enqueued_at, retry_at) VALUES (?, ?, ?, ?)
       RETURNING id, item_type, item_id, attempts`,
    );
    // An item that already has a row (a failed try, a repair) is left to that row.
    for (const id of ids) {
      const row = lease.get(kind, id, nowMs, until);
      if (row) rows.push(row);
    }
    ctx.q
      .get(`UPDATE embed_cursor SET last_id = ? WHERE item_type = ?`)
      .run(ids[ids.length - 1], kind);
  }
  return rows;
}

/**
 * Take ready rows, then new items, and lease them, in one short transaction. Rows that failed
 * twice or more are taken one at a time, so one bad item cannot keep a batch from being embedded.
 */
function claim(ctx: BrainContext, batchSize: number): QueueRow[] {
  const nowMs = ctx.clock().getTime();
  return ctx.db
    .transaction(() => {
      const due = ctx.q
        .get<[number], QueueRow>(
          `SELECT id, item_type, item_id, attempts FROM embed_queue
           WHERE retry_at IS NOT NULL AND retry_at <= ? ORDER BY retry_at LIMIT 1`,
        )
        .get(nowMs);
      let rows: QueueRow[];
      if (due && due.attempts >= 2) rows = [due];
      else {
        rows = ctx.q
          .get<[number], QueueRow>(
            `SELECT id, item_type, item_id, attempts FROM embed_queue WHERE retry_at IS NULL ORDER BY id LIMIT ?`,
          )
          .all(batchSize);
        if (due && rows.length < batchSize) {
          rows.push(
            ...ctx.q
              .get<[number, number], QueueRow>(
                `SELECT id, item_type, item_id, attempts FROM embed_queue
                 WHERE retry_at IS NOT NULL AND retry_at <= ? AND attempts < 2 ORDER BY retry_at LIMIT ?`,
              )
              .all(nowMs, batchSize - rows.length),
          );
        }
      }
      const lease = ctx.q.get(`UPDATE embed_queue SET retry_at = ? WHERE id = ?`);
      const until = nowMs + LEASE_MS;
      for (const r of rows) lease.run(until, r.id);
      if (rows.length < batchSize && !(due && due.attempts >= 2))
        rows.push(...claimNew(ctx, batchSize - rows.length, nowMs, until));
      return rows;
    })
    .immediate();
}

/**
 * Another model made this brain's vectors: queue every item again. The old vectors serve searches
 * by that model until the first batch of the new one replaces the space (store.ensureSpace).
 */
function requeueOtherModels(ctx: BrainContext, model: string): void {
  const space = readSpace(ctx);
  if (!space || space.model === model) return;
  ctx.db.transaction(() => requeueAll(ctx)).immediate();
}

/**
 * Embed queued items until none is ready: build texts (read), call the embedder (no transaction
 * open), store vectors and drop their queue rows (one short write). A failed batch stays queued
 * with a backoff; the pass stops early when the embedder cannot be reached at all.
 */
export async function drainQueue(
  ctx: BrainContext,
  embedder: Embedder,
  options: DrainOptions = {},
): Promise<DrainResult> {
  const batchSize = Math.max(1, options.batchSize ?? embedder.batchSize);
  const result: DrainResult = {
    embedded: 0,
    failed: 0,
    unchanged: 0,
    stopped_by: null,
    errors: [],
  };
  let done = 0;
  requeueOtherModels(ctx, embedder.model);
  while (!options.signal?.aborted) {
    const room =
      options.maxItems === undefined ? batchSize : Math.min(batchSize, options.maxItems - done);
    if (room <= 0) break;
    const rows = claim(ctx, room);
    if (rows.length === 0) break;
    done += rows.length;

    const docs = new Map<number, EmbedDocument>();
    const gone: QueueRow[] = [];
    const same: QueueRow[] = [];
    for (const row of rows) {
      const doc = buildDocument(ctx, row.item_type, row.item_id);
      if (!doc) gone.push(row);
      else if (storedHash(ctx, row.item_type, row.item_id, embedder.model) === doc.hash)
        same.push(row);
      else docs.set(row.id, doc);
    }
    const todo = rows.filter((r) => docs.has(r.id));
    let vectors: Float32Array[] = [];
    let failure: unknown;
    if (todo.length > 0) {
      try {
        vectors = await embedder.embed(
          todo.map((r) => docs.get(r.id)!.text),
          'document',
          { signal: options.signal },
        );
      } catch (err) {
        failure = err;
      }
    }
    // A dimension other than the space's is a failure only while another model's vectors are kept.
    const finished = [...gone, ...same];
    if (failure === undefined && vectors.length > 0) {
      const space = readSpace(ctx);
      const dim = vectors[0]!.length;
      if (space && space.model === embedder.model && space.dimension !== dim) {
        failure = new EmbedderError(
          `${embedder.model} returned vectors of dimension ${dim}, but this brain's ${space.model} vectors have ${space.dimension}`,
          { unavailable: false },
        );
      }
    }
    const now = ctx.clock().getTime();
    ctx.db
      .transaction(() => {
        const drop = ctx.q.get(`DELETE FROM embed_queue WHERE id = ?`);
        for (const r of finished) drop.run(r.id);
        if (failure === undefined && todo.length > 0) {
          ensureSpace(ctx, embedder.model, vectors[0]!.length, now);
          todo.forEach((r, i) => {
            storeVector(ctx, docs.get(r.id)!, vectors[i]!, embedder.model, now);
            drop.run(r.id);
          });
        } else if (failure !== undefined && options.signal?.aborted) {
          // Cancelled, not failed: give the rows back as they were, without counting a try.
          const release = ctx.q.get(
            `UPDATE embed_queue SET retry_at = CASE WHEN attempts = 0 THEN NULL ELSE ? END WHERE id = ?`,
          );
          for (const r of todo) release.run(now, r.id);
        } else if (failure !== undefined) {
          const message = failure instanceof Error ? failure.message : String(failure);
          const fail = ctx.q.get(
            `UPDATE embed_queue SET attempts = attempts + 1, retry_at = ?, last_error = ? WHERE id = ?`,
          );
          for (const r of todo) {
            const retryAt = ctx.clock().getTime() + backoffMs(r.attempts + 1);
            fail.run(retryAt, message.slice(0, 500), r.id);
          }
        }
      })
      .immediate();
    result.unchanged += same.length;
    if (failure === undefined) result.embedded += todo.length;
    else if (options.signal?.aborted) break;
    else {
      result.failed += todo.length;
      const message = failure instanceof Error ? failure.message : String(failure);
      if (!result.errors.includes(message)) result.errors.push(message);
    }
    options.onProgress?.({ done, embedded: result.embedded, failed: result.failed });
    if (failure !== undefined && (!(failure instanceof EmbedderError) || failure.unavailable)) {
      result.stopped_by = failure instanceof Error ? failure.message : String(failure);
      break;
    }
  }
  return result;
}
