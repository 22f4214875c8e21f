import { statSync } from 'node:fs';
import { flushNoted, type BrainContext } from '../context.js';
import { replicatedByLitestream } from '../db/litestream.js';
import { writeWithoutWaiting } from '../db/no-wait.js';
import { BrainError } from '../errors.js';
import {
  FTS_INDEXES,
  STRUCTURE_ROWID,
  decodeStructure,
  needsMerge,
  type FtsIndex,
  type FtsStructure,
} from './fts-structure.js';
import { applyRetention, type RetentionPolicy } from './retention.js';

/**
 * Work a long-running process does between requests so that writes do not do it at commit.
 *
 * The WAL: past 16 MiB the writer that notices checkpoints and truncates it (src/db/wal.ts), inside
 * its call: 50–100 ms at a million messages, once every hundred turns or so of the assistant.
 * Checkpointed in idle time once it holds 4 MiB, never waiting for a lock or a reader, the WAL
 * rarely reaches that limit. Neither checkpoints a file Litestream replicates: that is its job.
 *
 * The full-text indexes: FTS5 merges an index's b-trees ("segments") at the commit that crosses
 * each 64th leaf page written, 64 pages of merging per level of the index (its `automerge`), which
 * continues a merge of megabytes over many commits. Idle steps of FTS5's `merge` command do that
 * work first: a merge a commit starts is finished between requests, and a level that has filled up
 * is merged before a commit would. `usermerge` (which levels `merge` takes) is left at FTS5's
 * default, the same as automerge's, so no more is merged than FTS5 would merge anyway.
 *
 * And first, what reads noted to be written later (memories' accesses, words' row counts:
 * `flushNoted`), which long-running processes would otherwise write only as they close.
 */

/** Leaf pages (FTS5's pgsz, about 4 KB each) of merging in one step: a few ms. */
export const MERGE_PAGES_PER_STEP = 64;
/**
 * The WAL is checkpointed and emptied in idle time once it holds this much: often enough that
 * writers rarely reach the keeper's 16 MiB, seldom enough that the fsync the next write makes of a
 * WAL started afresh (synchronous=NORMAL syncs a new WAL's header) is paid once in many writes.
 */
export const IDLE_CHECKPOINT_BYTES = 4 * 1024 * 1024;
/** Merge steps in one `maintain` call unless told otherwise. */
export const DEFAULT_MAINTAIN_STEPS = 8;

export interface MaintainOptions {
  /** The most merge steps to take, each one short transaction (default 8). */
  steps?: number;
  /** Archive and close idle threads by this policy (retention.ts), once a minute at most. */
  retention?: RetentionPolicy | undefined;
}

/** How often the maintainer applies a retention policy: limits are days, a minute is plenty. */
export const RETENTION_INTERVAL_MS = 60_000;

export interface MaintainResult {
  /** Merge steps that did work. */
  merged: number;
  /** Merge work remains: the budget ran out, or another writer held the lock. */
  pending: boolean;
  /** The WAL was copied into the database file and emptied. */
  checkpointed: boolean;
  /** Another connection held the write lock (or a reader the WAL): the rest waits for a later call. */
  busy: boolean;
  /** Threads retention archived and closed in this call (absent when it did not run). */
  retention?: { archived: number; closed: number };
}

export interface IdleMaintainer {
  maintain(options?: MaintainOptions): MaintainResult;
}

/** FTS5's default `usermerge`, where the setting is absent from `<index>_config`. */
const FTS5_DEFAULT_USERMERGE = 4;

export function createIdleMaintainer(ctx: BrainContext, path: string): IdleMaintainer {
  const { db } = ctx;
  const walPath = path === ':memory:' ? undefined : `${path}-wal`;
  const totalChanges = db.prepare('SELECT total_changes()').pluck();
  // The WAL's size when a reader (or another checkpoint) was in the way: not again until it grows.
  let walSizeWhenBlocked = -1;
  // When retention last ran, by the brain's clock; it runs in the first call.
  let retentionRanAt = -Infinity;

  /** One merge step on `index`: true when it merged something. */
  function mergeStep(index: FtsIndex): { worked: boolean; busy: boolean } {
    let worked = false;
    const done = writeWithoutWaiting(db, () => {
      db.transaction(() => {
        const before = totalChanges.get() as number;
        ctx.q
          .get(`INSERT INTO ${index}(${index}, rank) VALUES ('merge', ${MERGE_PAGES_PER_STEP})`)
          .run();
        // As FTS5's documentation says: fewer than two changes means the command found no work.
        worked = (totalChanges.get() as number) - before >= 2;
      }).immediate();
    });
    return { worked: done && worked, busy: !done };
  }

  function structure(index: FtsIndex): FtsStructure {
    const row = ctx.q
      .get<[number], { block: Buffer }>(`SELECT block FROM ${index}_data WHERE id = ?`)
      .get(STRUCTURE_ROWID);
    return row ? decodeStructure(row.block) : { levels: [], segments: 0 };
  }

  function minSegments(index: FtsIndex): number {
    const row = ctx.q
      .get<[], { v: unknown }>(`SELECT v FROM ${index}_config WHERE k = 'usermerge'`)
      .get();
    return typeof row?.v === 'number' ? row.v : FTS5_DEFAULT_USERMERGE;
  }

  function checkpoint(): { checkpointed: boolean; busy: boolean } {
    if (!walPath) return { checkpointed: false, busy: false };
    let size: number;
    try {
      size = statSync(walPath, { throwIfNoEntry: false })?.size ?? 0;
    } catch {
      // The WAL cannot be looked at (permissions): nothing to decide on; the keeper still runs.
      return { checkpointed: false, busy: false };
    }
    if (size < IDLE_CHECKPOINT_BYTES) return { checkpointed: false, busy: false };
    if (size === walSizeWhenBlocked) return { checkpointed: false, busy: true };
    // Litestream checkpoints a file it replicates (src/db/litestream.ts); past the runaway size
    // the writers' keeper takes over again.
    if (replicatedByLitestream(db)) return { checkpointed: false, busy: false };
    let blocked = true;
    const ran = writeWithoutWaiting(db, () => {
      const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
      blocked = Boolean(result?.busy);
    });
    if (!ran || blocked) {
      walSizeWhenBlocked = size;
      return { checkpointed: false, busy: true };
    }
    walSizeWhenBlocked = -1;
    return { checkpointed: true, busy: false };
  }

  return {
    maintain(options = {}) {
      const steps = options.steps ?? DEFAULT_MAINTAIN_STEPS;
      if (!Number.isInteger(steps) || steps < 0)
        throw new BrainError('INVALID_INPUT', `steps: must be a whole number ≥ 0, got ${steps}`);
      // A read-only connection writes nothing, and has nothing to look at for it; inside a
      // transaction (a batch) a step would only add to that transaction.
      if (db.readonly || !db.open || db.inTransaction)
        return { merged: 0, pending: false, checkpointed: false, busy: false };
      let merged = 0;
      let pending = false;
      // What reads noted for later (memories' accesses, words' counts) first: it never waits.
      let busy = !flushNoted(ctx);
      for (const index of FTS_INDEXES) {
        const min = minSegments(index);
        while (needsMerge(structure(index), min)) {
          if (merged >= steps || busy) {
            pending = true;
            break;
          }
          const step = mergeStep(index);
          if (step.busy) busy = true;
          else if (step.worked) merged++;
          else break; // the command saw no work where the structure did: leave it to FTS5
        }
      }
      const wal = busy ? { checkpointed: false, busy: false } : checkpoint();
      const result: MaintainResult = {
        merged,
        pending,
        checkpointed: wal.checkpointed,
        busy: busy || wal.busy,
      };
      const now = ctx.clock().getTime();
      if (options.retention && !busy && now - retentionRanAt >= RETENTION_INTERVAL_MS) {
        const kept = applyRetention(ctx, options.retention);
        if (kept.busy) result.busy = true;
        else retentionRanAt = now;
        result.retention = { archived: kept.archived, closed: kept.closed };
      }
      return result;
    },
  };
}
