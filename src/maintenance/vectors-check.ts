import type { Database } from 'better-sqlite3';
import { EMBEDDED_KINDS } from '../embed/kinds.js';
import { listed, type DoctorCheck } from './check.js';

const hasTable = (db: Database, name: string): boolean =>
  Boolean(db.prepare(`SELECT 1 FROM sqlite_schema WHERE name = ?`).pluck().get(name));

interface Space {
  model: string;
  dimension: number;
}

/**
 * Items with neither a vector nor a place on the queue: search by meaning would never find them.
 * Items above their kind's `embed_cursor` wait without a queue row (migration 0004).
 */
const unqueuedSql = (type: string, table: string) => `
  SELECT t.id FROM "${table}" t
  WHERE t.id <= coalesce((SELECT last_id FROM embed_cursor WHERE item_type = '${type}'), 0)
    AND NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.item_type = '${type}' AND e.item_id = t.id)
    AND NOT EXISTS (SELECT 1 FROM embed_queue q WHERE q.item_type = '${type}' AND q.item_id = t.id)`;

/** Vectors of items that no longer exist. */
const ORPHANS = EMBEDDED_KINDS.map(
  ([type, table]) =>
    `SELECT e.id FROM embeddings e WHERE e.item_type = '${type}'
       AND NOT EXISTS (SELECT 1 FROM "${table}" t WHERE t.id = e.item_id)`,
).join(' UNION ALL ');

interface Findings {
  unqueued: Array<{ type: string; ids: number[] }>;
  otherSpace: number[];
  orphans: number[];
  /** embeddings rows with no row in vec_index. */
  unindexed: number[];
  /** vec_index rows with no embeddings row. */
  strays: bigint[];
  space: Space | undefined;
}

function inspect(db: Database): Findings {
  const ids = (sql: string, ...params: unknown[]) =>
    db
      .prepare(sql)
      .pluck()
      .all(...params) as number[];
  const space = db.prepare(`SELECT model, dimension FROM embedding_space WHERE id = 1`).get() as
    Space | undefined;
  const findings: Findings = {
    unqueued: EMBEDDED_KINDS.map(([type, table]) => ({ type, ids: ids(unqueuedSql(type, table)) })),
    otherSpace: space
      ? ids(
          `SELECT id FROM embeddings WHERE model <> ? OR dimension <> ?`,
          space.model,
          space.dimension,
        )
      : ids(`SELECT id FROM embeddings`),
    orphans: ids(ORPHANS),
    unindexed: [],
    strays: [],
    space,
  };
  if (hasTable(db, 'vec_index')) {
    // vec0 answers rowid scans, not joins: compare the two id sets here.
    const indexed = new Set(
      (db.prepare(`SELECT rowid FROM vec_index`).pluck().safeIntegers().all() as bigint[]).map(
        Number,
      ),
    );
    const stored = ids(`SELECT id FROM embeddings`);
    const storedSet = new Set(stored);
    findings.unindexed = stored.filter((id) => !indexed.has(id));
    findings.strays = [...indexed].filter((id) => !storedSet.has(id)).map(BigInt);
  } else {
    findings.unindexed = ids(`SELECT id FROM embeddings`);
  }
  return findings;
}

/**
 * Vectors against the embedding queue (migration 0002): every message, memory and atom has a
 * vector of the current model or waits on the queue for one, and every vector is in the index.
 * Repair drops what is wrong and queues the items again; `brain embed` (or a server's background
 * drainer) makes their vectors, outside any transaction.
 */
export const vectorsCheck: DoctorCheck = {
  name: 'vectors',
  description: 'every item has a vector of the current model or waits on the embedding queue',
  run(db) {
    if (!hasTable(db, 'embed_queue')) return [];
    const f = inspect(db);
    const problems: string[] = [];
    for (const { type, ids } of f.unqueued)
      if (ids.length)
        problems.push(`${ids.length} ${type} item(s) have no vector and are not queued for one`);
    if (f.otherSpace.length)
      problems.push(
        `${f.otherSpace.length} vector(s) are not of the current model (${f.space?.model ?? 'none'})`,
      );
    if (f.orphans.length)
      problems.push(`${f.orphans.length} vector(s) belong to items that no longer exist`);
    if (f.unindexed.length)
      problems.push(`${f.unindexed.length} vector(s) are missing from the vector index`);
    if (f.strays.length)
      problems.push(`${f.strays.length} vector index row(s) have no stored vector`);
    return listed(problems);
  },
  repair(db) {
    if (!hasTable(db, 'embed_queue')) return [];
    const f = inspect(db);
    // Queued at SQLite's time, in milliseconds, as the triggers that queue a changed item do.
    const queue = db.prepare(
      `INSERT OR IGNORE INTO embed_queue (item_type, item_id, enqueued_at)
       VALUES (?, ?, CAST(round(unixepoch('now', 'subsec') * 1000) AS INTEGER))`,
    );
    const dropIndexed = hasTable(db, 'vec_index')
      ? db.prepare(`DELETE FROM vec_index WHERE rowid = ?`)
      : undefined;
    const drop = (ids: number[], requeue: boolean): number => {
      const item = db.prepare(`SELECT item_type, item_id FROM embeddings WHERE id = ?`);
      const remove = db.prepare(`DELETE FROM embeddings WHERE id = ?`);
      for (const id of ids) {
        const row = item.get(id) as { item_type: string; item_id: number } | undefined;
        if (requeue && row) queue.run(row.item_type, row.item_id);
        dropIndexed?.run(BigInt(id));
        remove.run(id);
      }
      return ids.length;
    };
    const done: string[] = [];
    const orphans = drop(f.orphans, false);
    if (orphans) done.push(`removed ${orphans} vector(s) of items that no longer exist`);
    const orphanSet = new Set(f.orphans);
    const redo = [...new Set([...f.otherSpace, ...f.unindexed])].filter((id) => !orphanSet.has(id));
    if (drop(redo, true))
      done.push(`dropped ${redo.length} vector(s) and queued their items again`);
    for (const id of f.strays) dropIndexed?.run(id);
    if (f.strays.length) done.push(`removed ${f.strays.length} vector index row(s) with no vector`);
    let queued = 0;
    for (const { type, ids } of f.unqueued)
      for (const id of ids) queued += queue.run(type, id).changes;
    if (queued) done.push(`queued ${queued} item(s) for embedding`);
    if (done.length) done.push('run `brain embed` (or keep a server running) to make the vectors');
    return done;
  },
};
