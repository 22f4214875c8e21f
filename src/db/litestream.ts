import type { Database } from 'better-sqlite3';

/**
 * Whether Litestream replicates this file. Litestream makes `_litestream_seq` and
 * `_litestream_lock` in the database when it starts replicating it, so every process that opens
 * the brain (the CLI, MCP servers, the assistant, `brain serve`) sees the same answer without
 * being configured, whoever runs Litestream (`brain replicate`, a systemd unit, the user).
 *
 * While it replicates, Litestream keeps a read transaction open and checkpoints the WAL itself,
 * under its own write lock, after copying the frames to the replica. A checkpoint of ours that
 * starts the WAL over (RESTART or TRUNCATE) would wait for that read transaction while holding the write lock (every writer stalls
 * for the wait, then it fails), and one that got through in a gap would make Litestream lose its
 * place and start a new generation with a full snapshot. So the brain leaves checkpoints to it.
 *
 * The tables stay when Litestream stops for good (and come along in a backup or a restore), so
 * leaving checkpoints to Litestream is bounded: past RUNAWAY_WAL_BYTES the WAL is evidently not
 * being checkpointed by anyone, and the brain checkpoints it again.
 */
export function replicatedByLitestream(db: Database): boolean {
  return Boolean(
    db
      .prepare(`SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = '_litestream_seq'`)
      .get(),
  );
}

/**
 * A WAL this big while Litestream's tables are there means Litestream is not checkpointing
 * (stopped, or never restarted after a restore): Litestream 0.3 runs a PASSIVE checkpoint past
 * 1,000 pages and forces a RESTART past 10,000 (about 40 MiB at 4 KiB pages).
 */
export const RUNAWAY_WAL_BYTES = 256 * 1024 * 1024;

/**
 * Remove Litestream's tables from a file it does not replicate (a restored brain, before anyone
 * replicates it): the brain then checkpoints its WAL itself again. Never while Litestream runs on
 * the file: it would lose its place. It makes them again when it starts.
 */
export function dropLitestreamTables(db: Database): boolean {
  if (!replicatedByLitestream(db)) return false;
  db.transaction(() => {
    db.exec('DROP TABLE IF EXISTS _litestream_seq; DROP TABLE IF EXISTS _litestream_lock;');
  }).immediate();
  return true;
}
