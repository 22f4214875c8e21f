import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, runCli, tempDir } from '../helpers.js';

const { dir, cleanup } = tempDir('brain-replication-');
const db = join(dir, 'brain.db');
const replica = join(dir, 'replica');
const url = pathToFileURL(replica).href;

beforeAll(async () => {
  const made = await runCli([
    '--db',
    db,
    '--agent',
    'ada',
    'send',
    '--to',
    'bob',
    '--body',
    'kept',
  ]);
  expect(made.code, made.stderr).toBe(0);
});
afterAll(cleanup);

const hasSnapshot = () =>
  existsSync(join(replica, 'generations')) &&
  readdirSync(join(replica, 'generations')).some(
    (g) => readdirSync(join(replica, 'generations', g, 'snapshots')).length > 0,
  );

describe('brain replicate', () => {
  it('prints the Litestream config it runs with', async () => {
    const r = await runCli(['--db', db, 'replicate', '--to', url, '--print-config']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`  - path: ${JSON.stringify(db)}\n`);
    expect(r.stdout).toContain(`      - type: file\n        path: ${JSON.stringify(replica)}\n`);
  });

  it('takes the replica from BRAIN_REPLICA_URL when --to is not given', async () => {
    const r = await runCli(['--db', db, 'replicate', '--print-config'], {
      BRAIN_REPLICA_URL: 's3://bkt/brain',
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('bucket: "bkt"');
  });

  it('refuses a missing or unusable replica with a usage error naming the option', async () => {
    const none = await runCli(['--db', db, 'replicate'], { BRAIN_REPLICA_URL: '' });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^brain: INVALID_INPUT: --to: is required/);
    const http = await runCli(['--db', db, 'replicate', '--to', 'http://example.com/x']);
    expect(http.code).toBe(2);
    expect(http.stderr).toMatch(/--to: http:\/\/ is not a replica/);
    const interval = await runCli([
      '--db',
      db,
      'replicate',
      '--to',
      url,
      '--sync-interval',
      'often',
    ]);
    expect(interval.code).toBe(2);
    expect(interval.stderr).toMatch(/--sync-interval: must be a duration/);
    expect(`${none.stderr}${http.stderr}${interval.stderr}`).not.toMatch(/\n\s+at /);
  });

  it('replicates until SIGTERM, while the doctor reports the replica and its lag', async () => {
    const child = spawn(
      process.execPath,
      [CLI, '--db', db, 'replicate', '--to', url, '--sync-interval', '100ms'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((done) => child.on('close', done));
    const end = Date.now() + 20_000;
    while (!hasSnapshot() && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    expect(hasSnapshot(), stderr).toBe(true);

    const doctor = await runCli(['--db', db, 'doctor', '--json'], { BRAIN_REPLICA_URL: url });
    expect(doctor.code, doctor.stderr).toBe(0);
    const { replication } = JSON.parse(doctor.stdout);
    expect(replication).toMatchObject({
      litestream: { source: 'package', version: expect.stringMatching(/^v0\.3\./) },
      replicated: true,
      replica: url,
      problem: null,
    });
    expect(replication.lag_ms).toBeGreaterThanOrEqual(0);

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stderr).toContain(`brain: replicating ${db} to ${url} every 100ms`);
  }, 40_000);
});

describe('brain restore', () => {
  it('never overwrites a file, and says so', async () => {
    const target = join(dir, 'taken.db');
    writeFileSync(target, 'mine');
    const r = await runCli(['--db', target, 'restore', '--from', url]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^brain: CONFLICT: --db: .*taken\.db already exists/);
    expect(readFileSync(target, 'utf8')).toBe('mine');
  });

  it('refuses a time that is not ISO 8601 with its zone, naming --timestamp', async () => {
    const r = await runCli([
      '--db',
      join(dir, 'then.db'),
      'restore',
      '--from',
      url,
      '--timestamp',
      '2026-01-01 10:00',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^brain: INVALID_INPUT: --timestamp: must be an ISO 8601 time/);
    expect(existsSync(join(dir, 'then.db'))).toBe(false);
  });

  it('says when the replica holds nothing for the time asked', async () => {
    const target = join(dir, 'early.db');
    const r = await runCli([
      '--db',
      target,
      'restore',
      '--from',
      url,
      '--timestamp',
      '2000-01-01T00:00:00Z',
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^brain: NOT_FOUND: no backup in file:\/\/.* at or before 2000-01-01T00:00:00\.000Z/,
    );
    expect(existsSync(target)).toBe(false);
  });

  it('restores the latest brain into a new file and checks it', async () => {
    const target = join(dir, 'elsewhere', 'brain.db');
    const r = await runCli(['--db', target, 'restore', '--from', url, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ path: target, from: url, timestamp: null, doctor: { ok: true } });
    const search = await runCli(['--db', target, 'search', 'kept', '--json']);
    expect(JSON.parse(search.stdout).hits).toHaveLength(1);
    // A new brain no Litestream runs on yet: it checkpoints its own WAL until one does.
    const doctor = await runCli(['--db', target, 'doctor', '--json']);
    expect(JSON.parse(doctor.stdout).replication.replicated).toBe(false);
  });
});
