import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBrain } from '../../src/index.js';
import { runCliInProcess as runHere } from '../cli-in-process.js';
import { runCli, tempDir } from '../helpers.js';

/**
 * `brain doctor` through the built CLI on what a crashed assistant leaves: a cron run still
 * "running" and an ask still "pending" whose process has ended, and its session's lease.
 */

let dir: string;
let cleanup: () => void;
let db: string;
let deadPid: number;
beforeAll(async () => {
  ({ dir, cleanup } = tempDir('brain-cli-doctor-assistant-'));
  db = join(dir, 'brain.db');
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  deadPid = child.pid!;
  (await openBrain({ dbPath: db })).close();
  const raw = new BetterSqlite3(db);
  const now = Date.now();
  raw
    .prepare(
      `INSERT INTO cron_runs (job, due_at, started_at, outcome, pid, host) VALUES ('daily', ?, ?, 'running', ?, ?)`,
    )
    .run(now - 60_000, now - 60_000, deadPid, hostname());
  raw
    .prepare(
      `INSERT INTO approvals (tool, args_digest, summary, decision, reason, session, asked_at, pid, host)
       VALUES ('run_command', 'd', 'git push', 'pending', 'writes', 'chat/work', ?, ?, ?)`,
    )
    .run(now - 30_000, deadPid, hostname());
  raw
    .prepare(
      `INSERT INTO leases (key, pid, host, label, acquired_at, expires_at) VALUES ('session:chat/work', ?, ?, 'turn', ?, ?)`,
    )
    .run(deadPid, hostname(), now - 60_000, now + 60_000);
  raw.close();
});
afterAll(() => cleanup());

describe('brain doctor on what a crashed assistant left', () => {
  it('finds it (exit 1), --repair fixes it (exit 0), and cron history says interrupted', async () => {
    const found = await runCli(['doctor', '--db', db]);
    expect(found.code, found.stderr).toBe(1);
    expect(found.stdout).toMatch(
      new RegExp(
        `✗ cron_runs .*\\n    cron run 1 of daily .* but its process ${deadPid} on this host has ended\\n`,
      ),
    );
    expect(found.stdout).toMatch(
      /✗ leases .*\n {4}lease session:chat\/work is held, but its holder/,
    );
    expect(found.stdout).toMatch(/✗ approvals .*\n {4}approval 1 \(run_command in chat\/work\)/);
    expect(found.stdout).toMatch(/✓ sessions/);

    const repaired = await runCli(['doctor', '--repair', '--db', db, '--json']);
    expect(repaired.code, repaired.stderr).toBe(0);
    const report = JSON.parse(repaired.stdout);
    expect(report.ok).toBe(true);
    expect(
      report.checks
        .filter((c: { repairs: string[] }) => c.repairs.length > 0)
        .map((c: { name: string; repairs: string[] }) => [c.name, c.repairs]),
    ).toEqual([
      ['cron_runs', ['marked 1 cron run(s) interrupted']],
      ['leases', ['freed 1 lease(s)']],
      ['approvals', ['settled 1 pending approval(s) as timed out']],
    ]);

    const history = await runHere(['cron', 'history', 'daily', '--db', db]);
    expect(history.stdout).toMatch(
      /^1 {2}due .* {2}interrupted interrupted: its process \d+ on this host has ended/,
    );
    const pending = await runHere(['approvals', '--pending', '--db', db]);
    expect(pending.stdout).toBe('no ask is waiting\n');
    expect((await runHere(['doctor', '--db', db])).code).toBe(0);
  });
});
