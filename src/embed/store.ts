import { isoSql } from '../clock.js';
import type { BrainContext } from '../context.js';
import type { SearchType } from '../validation.js';
import type { EmbedDocument } from './documents.js';

/** Which model made the vectors of a brain, and their dimension. */
export interface VectorSpace {
  model: string;
  dimension: number;
  created_at: string;
}

/** The 1-bit index needs a multiple of 8 dimensions; vectors are padded with zeros to it. */
export function bitDimension(dimension: number): number {
  return Math.ceil(dimension / 8) * 8;
}

/** A vector as the 1-bit index takes it (zero-padded to a multiple of 8). */
export function forBitIndex(vector: Float32Array): Float32Array {
  const size = bitDimension(vector.length);
  if (size === vector.length) return vector;
  const padded = new Float32Array(size);
  padded.set(vector);
  return padded;
}

export function readSpace(ctx: BrainContext): VectorSpace | undefined {
  return ctx.q
    .get<[], VectorSpace>(
      `SELECT model, dimension, ${isoSql('created_at')} AS created_at FROM embedding_space WHERE id = 1`,
    )
    .get();
}

function vecIndexExists(ctx: BrainContext): boolean {
  return (
    ctx.q
      .get<[], { n: number }>(`SELECT count(*) AS n FROM sqlite_schema WHERE name = 'vec_index'`)
      .get()!.n > 0
  );
}

/**
 * Put every item back above the embedding cursors (migration 0004): each is embedded again, or
 * found unchanged, by the next drains. Inside a write transaction.
 */
export function requeueAll(ctx: BrainContext): void {
  ctx.q.get(`UPDATE embed_cursor SET last_id = 0`).run();
}

/**
 * Make `model`/`dimension` the brain's space; inside a write transaction. A different model than
 * the one in use drops every vector and queues every item again: vectors of two models never mix.
 */
export function ensureSpace(
  ctx: BrainContext,
  model: string,
  dimension: number,
  /** Milliseconds since 1970, UTC. */
  now: number,
): void {
  const space = readSpace(ctx);
  if (space && space.model === model && space.dimension === dimension && vecIndexExists(ctx))
    return;
  ctx.db.exec(`DROP TABLE IF EXISTS vec_index`);
  if (space) {
    ctx.db.exec(`DELETE FROM embeddings`);
    requeueAll(ctx);
  }
  ctx.db
    .prepare(
      `INSERT INTO embedding_space (id, model, dimension, created_at) VALUES (1, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET model = excluded.model, dimension = excluded.dimension, created_at = excluded.created_at`,
    )
    .run(model, dimension, now);
  ctx.db.exec(
    `CREATE VIRTUAL TABLE vec_index USING vec0(
       item_type text partition key,
       embedding bit[${bitDimension(dimension)}],
       created_ms integer,
       agent_id integer,
       thread_id integer,
       expires_ms integer)`,
  );
}

/** Store (or replace) one item's vector; inside a write transaction, after ensureSpace. */
export function storeVector(
  ctx: BrainContext,
  doc: EmbedDocument,
  vector: Float32Array,
  model: string,
  /** Milliseconds since 1970, UTC. */
  now: number,
): void {
  const blob = Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
  const existing = ctx.q
    .get<[string, number], { id: number }>(
      `SELECT id FROM embeddings WHERE item_type = ? AND item_id = ?`,
    )
    .get(doc.type, doc.rowid);
  let id: number;
  if (existing) {
    id = existing.id;
    ctx.q
      .get(
        `UPDATE embeddings SET model = ?, dimension = ?, content_hash = ?, vector = ?, embedded_at = ? WHERE id = ?`,
      )
      .run(model, vector.length, doc.hash, blob, now, id);
    // vec0 has no working INSERT OR REPLACE: delete, then insert.
    ctx.q.get(`DELETE FROM vec_index WHERE rowid = ?`).run(BigInt(id));
  } else {
    id = Number(
      ctx.q
        .get(
          `INSERT INTO embeddings (item_type, item_id, model, dimension, content_hash, vector, embedded_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(doc.type, doc.rowid, model, vector.length, doc.hash, blob, now).lastInsertRowid,
    );
  }
  ctx.q
    .get(
      `INSERT INTO vec_index (rowid, item_type, embedding, created_ms, agent_id, thread_id, expires_ms)
       VALUES (?, ?, vec_quantize_binary(?), ?, ?, ?, ?)`,
    )
    .run(
      BigInt(id),
      doc.type,
      forBitIndex(vector),
      BigInt(doc.createdMs),
      BigInt(doc.agentId),
      BigInt(doc.threadId),
      BigInt(doc.expiresMs),
    );
}

/** The content hash of an item's stored vector under `model`, if it has one. */
export function storedHash(
  ctx: BrainContext,
  type: SearchType,
  rowid: number,
  model: string,
): string | undefined {
  return ctx.q
    .get<[string, number, string], { content_hash: string }>(
      `SELECT content_hash FROM embeddings WHERE item_type = ? AND item_id = ? AND model = ?`,
    )
    .get(type, rowid, model)?.content_hash;
}

/** A stored vector as floats (a view over the blob). */
export function toVector(blob: Buffer): Float32Array {
  const copy = new Uint8Array(blob.byteLength);
  copy.set(blob);
  return new Float32Array(copy.buffer);
}
