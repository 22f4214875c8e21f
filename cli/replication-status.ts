import {
  describeReplica,
  isBrainError,
  litestreamConfig,
  parseGenerations,
  parseReplicaUrl,
  replicationLag,
  type ReplicationState,
} from '../src/index.js';
import {
  findLitestream,
  litestreamError,
  runLitestream,
  writeConfigFile,
  type Litestream,
} from './litestream.js';

/** What `brain doctor` says of replication. */
export interface ReplicationReport {
  /** The Litestream brain would run, or null when there is none. */
  litestream: (Litestream & { version: string | null }) | null;
  /** Litestream's tables are in the file, so checkpoints are left to it. */
  replicated: boolean;
  wal_bytes: number;
  /** The configured replica (BRAIN_REPLICA_URL), or null. */
  replica: string | null;
  /** How far the replica is behind the brain's last write, in ms (0 when caught up); null when unknown. */
  lag_ms: number | null;
  /** Why the lag is unknown, when a replica is configured. */
  problem: string | null;
}

const LOOK_TIMEOUT_MS = 15_000;

export async function replicationReport(
  dbPath: string,
  state: ReplicationState,
  replicaUrl: string | undefined,
): Promise<ReplicationReport> {
  const found = findLitestream();
  const litestream = found ? { ...found, version: await versionOf(found) } : null;
  const report: ReplicationReport = {
    litestream,
    replicated: state.litestream,
    wal_bytes: state.walBytes,
    replica: null,
    lag_ms: null,
    problem: null,
  };
  if (!replicaUrl) return report;
  try {
    const replica = parseReplicaUrl(replicaUrl, 'BRAIN_REPLICA_URL');
    report.replica = describeReplica(replica);
    if (!found) return { ...report, problem: 'Litestream is not installed' };
    const config = writeConfigFile(litestreamConfig(dbPath, replica));
    try {
      // With the database named, Litestream measures each generation's lag from the database's
      // last write (the WAL's time) to the replica's newest data: negative when it has it all.
      const result = await runLitestream(found, ['generations', '-config', config.path, dbPath], {
        timeoutMs: LOOK_TIMEOUT_MS,
      });
      if (result.code !== 0) return { ...report, problem: litestreamError(result) };
      const latest = replicationLag(parseGenerations(result.stdout));
      if (!latest) return { ...report, problem: 'the replica holds no generation yet' };
      report.lag_ms = Math.max(0, Math.round(latest.lagMs));
    } finally {
      config.cleanup();
    }
  } catch (err) {
    if (!isBrainError(err)) throw err;
    report.problem = err.message;
  }
  return report;
}

async function versionOf(litestream: Litestream): Promise<string | null> {
  const result = await runLitestream(litestream, ['version'], { timeoutMs: LOOK_TIMEOUT_MS });
  return result.code === 0 ? result.stdout.trim() : null;
}

/** The report in lines for people. */
export function describeReplication(r: ReplicationReport): string[] {
  const lines = [
    r.litestream
      ? `litestream: ${r.litestream.version ?? 'unknown version'} from ${r.litestream.source === 'package' ? 'the package installed with brain' : 'PATH'} (${r.litestream.path})`
      : 'litestream: not installed (neither its package nor PATH has it); brain replicate needs it',
  ];
  const wal = `${(r.wal_bytes / 1_048_576).toFixed(1)} MiB`;
  lines.push(
    r.replicated
      ? `replication: Litestream's tables are in this file, so checkpoints are left to it (WAL ${wal})`
      : `replication: Litestream has not replicated this file (WAL ${wal})`,
  );
  if (r.replica) {
    const lag =
      r.lag_ms !== null ? `lag ${(r.lag_ms / 1000).toFixed(1)} s` : `lag unknown: ${r.problem}`;
    lines.push(`replica: ${r.replica}, ${lag}`);
  } else if (r.problem) lines.push(`replica: ${r.problem}`);
  return lines;
}
