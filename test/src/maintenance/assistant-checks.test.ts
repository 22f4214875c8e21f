import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectionOf } from '../../../src/brain.js';
import { ownerState, processStartMs } from '../../../src/assistant/owner-process.js';
import type { DoctorReport } from '../../../src/index.js';
import { tempBrain, type TempBrain } from '../../helpers.js';

/**
 * `brain doctor` on the assistant's tables, with real processes as owners: one that has ended
 * (its pid answers ESRCH), one that still runs, this one. The brain runs on the system clock,
 * since whether a process can own a row depends on when the process started.
 */

let t: TempBrain;
let sleeper: ChildProcess;
let deadPid: number;
const HOST = hostname();
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

async function endedProcess(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

beforeEach(async () => {
  t = await tempBrain();
  deadPid = await endedProcess();
  sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
  await new Promise((resolve) => sleeper.once('spawn', resolve));
});
afterEach(() => {
  sleeper.kill();
  t.cleanup();
});

const problems = (r: DoctorReport, name: string) => r.checks.find((c) => c.name === name)!;

function insert(sql: string, ...params: unknown[]): void {
  connectionOf(t.brain)
    .prepare(sql)
    .run(...params);
}

function run(job: string, startedAgo: number, pid: number | null, host: string | null): void {
  const started = Date.now() - startedAgo;
  insert(
    `INSERT INTO cron_runs (job, due_at, started_at, outcome, pid, host) VALUES (?, ?, ?, 'running', ?, ?)`,
    job,
    started,
    started,
    pid,
    host,
  );
}

function ask(tool: string, askedAgo: number, pid: number | null, host: string | null): void {
  insert(
    `INSERT INTO approvals (tool, args_digest, summary, decision, reason, session, asked_at, pid, host)
     VALUES (?, 'd', ?, 'pending', 'asks', 'chat/work', ?, ?, ?)`,
    tool,
    tool,
    Date.now() - askedAgo,
    pid,
    host,
  );
}

function lease(key: string, pid: number, host: string, expiresIn: number): void {
  insert(
    `INSERT INTO leases (key, pid, host, label, acquired_at, expires_at) VALUES (?, ?, ?, 'turn', ?, ?)`,
    key,
    pid,
    host,
    Date.now() - 1000,
    Date.now() + expiresIn,
  );
}

describe('the owner of work under way', () => {
  it('is gone when its process has ended, alive while it runs, unknown elsewhere', () => {
    const now = Date.now();
    expect(ownerState(deadPid, HOST, now - 1000)).toBe('gone');
    expect(ownerState(sleeper.pid!, HOST, now - 1000)).toBe('alive');
    expect(ownerState(process.pid, HOST, now - DAY)).toBe('alive');
    expect(ownerState(sleeper.pid!, 'elsewhere', now)).toBe('unknown');
    expect(ownerState(null, null, now)).toBe('unknown');
  });

  it.runIf(existsSync('/proc/self/stat'))(
    'is gone when its pid now names a process started after the work began (a reused pid)',
    () => {
      const started = processStartMs(sleeper.pid!)!;
      expect(Math.abs(started - Date.now())).toBeLessThan(60_000);
      expect(ownerState(sleeper.pid!, HOST, started - 60_000)).toBe('gone');
    },
  );
});

describe('brain doctor on the assistant’s tables', () => {
  it('passes with work whose processes still run, or too recent to judge', async () => {
    run('alive', 1000, sleeper.pid!, HOST);
    run('mine', 1000, process.pid, HOST);
    run('old-row-recent', HOUR, null, null);
    ask('alive_tool', 1000, sleeper.pid!, HOST);
    lease('session:chat/a', sleeper.pid!, HOST, -1000); // expired, but its holder still runs
    lease('session:chat/b', 4242, 'elsewhere', 60_000);
    t.brain.assistant.session({ name: 'chat/work', agent: 'assistant', owner: 'ann' });
    const report = await t.brain.upkeep.doctor();
    expect(report.ok, JSON.stringify(report.checks.filter((c) => !c.ok))).toBe(true);
  });

  it('finds work cut short, and --repair interrupts it, frees it and settles it', async () => {
    run('crashed', 5000, deadPid, HOST);
    run('before-0019', 2 * DAY, null, null);
    run('elsewhere', 2 * DAY, 77, 'elsewhere');
    run('alive', 1000, sleeper.pid!, HOST);
    ask('crashed_tool', 5000, deadPid, HOST);
    ask('old_tool', 2 * DAY, null, null);
    ask('alive_tool', 1000, sleeper.pid!, HOST);
    lease('session:chat/dead', deadPid, HOST, 60_000);
    lease('session:chat/far', 77, 'elsewhere', -1000);
    lease('session:chat/alive', sleeper.pid!, HOST, 60_000);
    const session = t.brain.assistant.session({
      name: 'chat/work',
      agent: 'assistant',
      owner: 'ann',
    });
    insert(`DELETE FROM session_threads`);
    expect(t.brain.assistant.sessions()).toEqual([]); // a session out of its history is lost to listings

    const found = await t.brain.upkeep.doctor();
    expect(found.ok).toBe(false);
    expect(problems(found, 'cron_runs').problems).toEqual([
      expect.stringMatching(
        new RegExp(
          `^cron run 1 of crashed .* is "running" since .*, but its process ${deadPid} on this host has ended$`,
        ),
      ),
      expect.stringMatching(
        /^cron run 2 of before-0019 .*, but no process is recorded for it, and it began more than a day ago$/,
      ),
      expect.stringMatching(
        /^cron run 3 of elsewhere .*, but its process 77 on elsewhere cannot be checked from .*, and it began more than a day ago$/,
      ),
    ]);
    expect(problems(found, 'approvals').problems).toEqual([
      expect.stringMatching(
        /^approval 1 \(crashed_tool in chat\/work\) is "pending" since .*has ended$/,
      ),
      expect.stringMatching(/^approval 2 \(old_tool in chat\/work\) .*more than a day ago$/),
    ]);
    expect(problems(found, 'leases').problems).toEqual([
      `lease session:chat/dead is held, but its holder, process ${deadPid}, has ended`,
      expect.stringMatching(
        /^lease session:chat\/far is held, but it expired at .* \(holder 77 on elsewhere\)$/,
      ),
    ]);
    expect(problems(found, 'sessions').problems).toEqual([
      `session chat/work's thread ${session.thread_id} is not in its history`,
    ]);

    const repaired = await t.brain.upkeep.doctor({ repair: true });
    expect(repaired.ok, JSON.stringify(repaired.checks.filter((c) => !c.ok))).toBe(true);
    expect(repaired.backup).not.toBeNull();
    expect(problems(repaired, 'cron_runs').repairs).toEqual(['marked 3 cron run(s) interrupted']);

    const runs = t.brain.assistant.cronRuns();
    expect(runs.map((r) => [r.job, r.outcome])).toEqual([
      ['alive', 'running'],
      ['crashed', 'interrupted'],
      ['elsewhere', 'interrupted'],
      ['before-0019', 'interrupted'],
    ]);
    expect(runs.find((r) => r.job === 'crashed')).toMatchObject({
      ended_at: expect.any(String),
      detail: `interrupted: its process ${deadPid} on this host has ended (brain doctor --repair)`,
    });
    expect(t.brain.assistant.approvals({ limit: 10 }).map((a) => [a.tool, a.decision])).toEqual([
      ['alive_tool', 'pending'],
      ['old_tool', 'timeout'],
      ['crashed_tool', 'timeout'],
    ]);
    expect(t.brain.assistant.getLease('session:chat/dead')).toBeUndefined();
    expect(t.brain.assistant.getLease('session:chat/far')).toBeUndefined();
    expect(t.brain.assistant.getLease('session:chat/alive')?.holder.pid).toBe(sleeper.pid);
    expect(t.brain.assistant.sessions().map((s) => [s.name, s.thread_id])).toEqual([
      ['chat/work', session.thread_id],
    ]);
    // A new turn of the session finds it free and continues its thread.
    expect(
      t.brain.assistant.acquireLease({
        key: 'session:chat/dead',
        holder: { pid: process.pid, host: HOST, label: 'turn' },
        ttl_ms: 1000,
      }),
    ).toBe(true);
  });

  it('reports, and does not move, a session whose thread another session holds', async () => {
    const a = t.brain.assistant.session({ name: 'chat/a', agent: 'assistant', owner: 'ann' });
    t.brain.assistant.session({ name: 'chat/b', agent: 'assistant', owner: 'ann' });
    insert(
      `UPDATE sessions SET thread_id = (SELECT thread_id FROM sessions WHERE name = 'chat/a')
       WHERE name = 'chat/b'`,
    );
    const repaired = await t.brain.upkeep.doctor({ repair: true });
    const check = problems(repaired, 'sessions');
    expect(check.remaining).toEqual([
      `session chat/b's thread ${a.thread_id} is in the history of session chat/a`,
    ]);
    expect(repaired.ok).toBe(false);
  });
});
