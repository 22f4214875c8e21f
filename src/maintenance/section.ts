import { flushAccesses } from '../knowledge/access-counts.js';
import { createIdleMaintainer, type MaintainOptions, type MaintainResult } from './idle.js';
import type { BackupResult } from './backup.js';
import type { DoctorInput, DoctorReport } from './doctor.js';
import type { RetentionPlan, RetentionPolicy, RetentionResult } from './retention.js';

import { statSync } from 'node:fs';
import { flushNoted, type BrainContext } from '../context.js';
import { dropLitestreamTables, replicatedByLitestream } from '../db/litestream.js';

/** What the file says of its replication, for `brain doctor`. */
export interface ReplicationState {
  /** Litestream's tables are in the file: it replicates it (or did), so it owns checkpoints. */
  litestream: boolean;
  /** The WAL's size now, in bytes. */
  walBytes: number;
}

/** Keeping the file healthy: what reads noted, idle merging and checkpoints, the doctor, backups. */
export interface UpkeepSection {
  /**
   * Write the accesses of memories that searches and listings noted, without waiting for the
   * write lock: false when another writer holds it (they stay noted). Long-running processes
   * call it every few seconds; `close` calls it once more.
   */
  flushAccesses(): boolean;
  /**
   * Write everything reads noted for later: the accesses of memories and the row counts of words
   * that searches counted (src/search/word-counts.ts), never waiting for the write lock. False
   * when another writer holds it (they stay noted). Long-running processes call it every few
   * seconds; `close` calls it once more.
   */
  flushNoted(): boolean;
  /**
   * Idle-time upkeep, never waiting for the write lock: a few short steps of merging the
   * full-text indexes (so commits need not merge them), then a checkpoint of the WAL once it holds
   * 1 MiB (so writes rarely reach the keeper's limit). Long-running processes call it every few
   * seconds (`startIdleMaintenance`); `pending` says more merging remains. Does nothing read-only.
   */
  maintain(options?: MaintainOptions): MaintainResult;
  /** What a retention policy archives and closes now, and within `horizonDays` (default 7). */
  retentionPlan(policy: RetentionPolicy, horizonDays?: number): Promise<RetentionPlan>;
  /** Archive and close the threads a retention policy says are due; never deletes. */
  applyRetention(policy: RetentionPolicy): Promise<RetentionResult>;
  /** Check integrity, full-text indexes, thread counters, deliveries; repair after a backup. */
  doctor: (input?: DoctorInput) => Promise<DoctorReport>;
  /** Copy the database to a new file with SQLite's online backup, while others keep writing. */
  backup: (file: string) => Promise<BackupResult>;
  /** Whether Litestream replicates the file, and how big its WAL is. */
  replication(): ReplicationState;
  /**
   * Drop the tables Litestream left in a file it no longer replicates (a restored brain), so the
   * brain checkpoints its WAL itself again; true when there were some. Never while it replicates.
   */
  forgetLitestream(): boolean;
}

export function upkeepSection(ctx: BrainContext, dbPath: string): UpkeepSection {
  const db = ctx.db;
  const maintainer = createIdleMaintainer(ctx, dbPath);
  return {
    flushAccesses: () => flushAccesses(ctx),
    flushNoted: () => flushNoted(ctx),
    maintain: (input) => maintainer.maintain(input),
    // Loaded when asked for: the one-off commands that run most never are (`brain search`, …).
    doctor: async (input) => (await import('./doctor.js')).runDoctor(db, dbPath, ctx.clock, input),
    retentionPlan: async (policy, horizonDays) =>
      (await import('./retention.js')).planRetention(ctx, policy, horizonDays),
    applyRetention: async (policy) => (await import('./retention.js')).applyRetention(ctx, policy),
    backup: async (file) => (await import('./backup.js')).backupDatabase(db, dbPath, file),
    forgetLitestream: () => dropLitestreamTables(db),
    replication: () => ({
      litestream: replicatedByLitestream(db),
      walBytes:
        dbPath === ':memory:'
          ? 0
          : (statSync(`${dbPath}-wal`, { throwIfNoEntry: false })?.size ?? 0),
    }),
  };
}
