import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import {
  BrainError,
  DEFAULT_SYNC_INTERVAL,
  describeReplica,
  litestreamConfig,
  loadConfig,
  parseReplicaUrl,
  parseSyncInterval,
  type Replica,
} from '../../src/index.js';
import {
  litestreamError,
  requireLitestream,
  runLitestream,
  startReplicate,
  writeConfigFile,
} from '../litestream.js';
import { note, printJson, println } from '../output.js';
import { withBrain, type GlobalOptions } from '../run.js';
import { printReport } from './maintenance.js';

type Globals = () => GlobalOptions;

const URL_HELP = 'file:///dir, s3://bucket/path or sftp://user@host/path; else BRAIN_REPLICA_URL';

export function registerReplication(program: Command, globals: Globals): void {
  program
    .command('replicate')
    .description('replicate the brain continuously with Litestream until stopped (Ctrl-C, SIGTERM)')
    .option('--to <url>', `the replica: ${URL_HELP}`)
    .option(
      '--sync-interval <duration>',
      'how often new writes go to the replica (250ms, 1s, 1m)',
      DEFAULT_SYNC_INTERVAL,
    )
    .option('--print-config', 'print the Litestream config it runs with, for running it yourself')
    .action((opts: { to?: string; syncInterval: string; printConfig?: boolean }) =>
      replicate(globals(), opts),
    );

  program
    .command('restore')
    .description(
      'restore the brain from its Litestream replica into a new file (--db), then run the doctor on it',
    )
    .option('--from <url>', `the replica: ${URL_HELP}`)
    .option('--timestamp <iso>', 'the brain as it was at this time (ISO 8601), else the latest')
    .action((opts: { from?: string; timestamp?: string }) => restore(globals(), opts));
}

/** The replica from its flag, else from the configuration; a usage error naming both when neither. */
function replicaFrom(
  flag: string,
  value: string | undefined,
  configured: string | undefined,
): Replica {
  if (value !== undefined) return parseReplicaUrl(value, flag);
  if (configured !== undefined) return parseReplicaUrl(configured, 'BRAIN_REPLICA_URL');
  throw new BrainError('INVALID_INPUT', `${flag}: is required (${URL_HELP})`);
}

async function replicate(
  globals: GlobalOptions,
  opts: { to?: string; syncInterval: string; printConfig?: boolean },
): Promise<void> {
  const config = loadConfig(undefined, { db: globals.db, agent: globals.agent });
  const replica = replicaFrom('--to', opts.to, config.replicaUrl);
  const syncInterval = parseSyncInterval(opts.syncInterval);
  const dbPath = resolve(config.dbPath);
  const yaml = litestreamConfig(dbPath, replica, { syncInterval });
  if (opts.printConfig) {
    if (globals.json) return printJson({ config: yaml });
    process.stdout.write(yaml);
    return;
  }
  // The brain must be there (and migrated) before Litestream takes its first snapshot of it.
  await withBrain(globals, () => undefined, ['upkeep']);
  const litestream = requireLitestream();
  const file = writeConfigFile(yaml);
  try {
    note(
      `brain: replicating ${dbPath} to ${describeReplica(replica)} every ${syncInterval} (Litestream from ${litestream.source}: ${litestream.path})`,
    );
    const child = startReplicate(litestream, file.path);
    let log = '';
    const forward = (d: Buffer) => {
      log = (log + d.toString()).slice(-4096);
      process.stderr.write(d);
    };
    child.stdout!.on('data', forward);
    child.stderr!.on('data', forward);
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      stopping = true;
      child.kill(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    const code = await new Promise<number | null>((done, fail) => {
      child.on('error', fail);
      child.on('close', (c) => done(c));
    }).finally(() => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    });
    if (!stopping || (code !== 0 && code !== null))
      throw new BrainError(
        'UPSTREAM_FAILED',
        `litestream replicate stopped (exit ${code}): ${litestreamError({ code, stdout: '', stderr: log })}`,
      );
  } finally {
    file.cleanup();
  }
}

/** ISO 8601 with a time and a zone, as Litestream (Go's RFC 3339) reads it; normalised to UTC. */
function parseTimestamp(value: string): string {
  const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;
  const ms = Date.parse(value);
  if (!iso.test(value.trim()) || Number.isNaN(ms))
    throw new BrainError(
      'INVALID_INPUT',
      `--timestamp: must be an ISO 8601 time with its zone, such as 2026-01-31T12:00:00Z, got ${JSON.stringify(value)}`,
    );
  return new Date(ms).toISOString();
}

async function restore(
  globals: GlobalOptions,
  opts: { from?: string; timestamp?: string },
): Promise<void> {
  const config = loadConfig(undefined, { db: globals.db, agent: globals.agent });
  const replica = replicaFrom('--from', opts.from, config.replicaUrl);
  const timestamp = opts.timestamp === undefined ? undefined : parseTimestamp(opts.timestamp);
  const target = resolve(config.dbPath);
  // A WAL or shared-memory file left beside the target would be read into the restored brain.
  for (const path of [target, `${target}-wal`, `${target}-shm`])
    if (existsSync(path))
      throw new BrainError(
        'CONFLICT',
        `--db: ${path} already exists; restore into a new file (brain never overwrites one)`,
      );
  const litestream = requireLitestream();
  mkdirSync(dirname(target), { recursive: true });
  const file = writeConfigFile(litestreamConfig(target, replica));
  try {
    const args = ['restore', '-config', file.path];
    if (timestamp) args.push('-timestamp', timestamp);
    const result = await runLitestream(litestream, [...args, target]);
    if (result.code !== 0) {
      const why = litestreamError(result);
      const from = describeReplica(replica);
      if (/no matching backups|no generation|no snapshots? available/i.test(why))
        throw new BrainError(
          'NOT_FOUND',
          `no backup in ${from}${timestamp ? ` at or before ${timestamp}` : ''} (${why})`,
        );
      throw new BrainError('UPSTREAM_FAILED', `restore from ${from} failed: ${why}`);
    }
  } finally {
    file.cleanup();
  }
  await withBrain(
    { ...globals, db: target },
    async ({ brain, json }) => {
      // The restored file is a new brain no Litestream runs on yet: its tables, copied from the
      // replicated brain, would keep the brain from checkpointing; Litestream makes them again.
      brain.upkeep.forgetLitestream();
      const report = await brain.upkeep.doctor();
      if (!report.ok) process.exitCode = 1;
      const from = describeReplica(replica);
      if (json)
        return printJson({ path: target, from, timestamp: timestamp ?? null, doctor: report });
      println(`restored ${target} from ${from}${timestamp ? ` as it was at ${timestamp}` : ''}`);
      printReport(report, false);
    },
    ['upkeep'],
  );
}
