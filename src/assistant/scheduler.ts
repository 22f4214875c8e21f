import { z } from 'zod';
import { isoNow, isoOfMillis, millisOf } from '../clock.js';
import type { BrainContext } from '../context.js';
import { BrainError } from '../errors.js';
import { isoTime, parseInput, text } from '../validation.js';
import { NO_OWNER, ownerState, thisProcess, type OwnerColumns } from './owner-process.js';
import type { CRON_OUTCOMES } from './vocabulary.js';
import { RETRIED } from './vocabulary.js';

/**
 * What the scheduler keeps across restarts: one row per due time of a cron job (the claim that
 * stops a due time running twice), and small named values (an email watcher's last UID, the
 * heartbeat's last delivery).
 */

export type CronOutcome = (typeof CRON_OUTCOMES)[number];

export interface CronRunRecord {
  id: number;
  job: string;
  due_at: string;
  started_at: string;
  ended_at: string | null;
  outcome: CronOutcome;
  delivered: boolean;
  late: boolean;
  detail: string;
}

const jobName = text(200).min(1, 'must not be empty');

const claimInput = z.strictObject({
  job: jobName,
  due_at: isoTime,
  /** A run caught up after downtime. */
  late: z.boolean().default(false),
  /** `skipped`: record the due time as missed instead of running it. */
  outcome: z.enum(['running', 'skipped']).default('running'),
  detail: text(2000).default(''),
});
export type ClaimCronRunInput = z.input<typeof claimInput>;

interface CronRow {
  id: number;
  job: string;
  due_at: number;
  started_at: number;
  ended_at: number | null;
  outcome: CronOutcome;
  delivered: number;
  late: number;
  detail: string;
}

const toRun = (r: CronRow): CronRunRecord => ({
  id: r.id,
  job: r.job,
  due_at: isoOfMillis(r.due_at)!,
  started_at: isoOfMillis(r.started_at)!,
  ended_at: isoOfMillis(r.ended_at),
  outcome: r.outcome,
  delivered: r.delivered === 1,
  late: r.late === 1,
  detail: r.detail,
});

/**
 * Claim a job's due time before running it: the run's row, or undefined when that due time was
 * already claimed (run, running or skipped), by this process or another. A run to be run records
 * this process (pid on host): while it is `running`, that process is the one doing it.
 */
export function claimCronRun(
  ctx: BrainContext,
  input: ClaimCronRunInput,
): CronRunRecord | undefined {
  const args = parseInput(claimInput, input);
  const now = millisOf(isoNow(ctx.clock));
  const row = ctx.db
    .transaction(() =>
      ctx.q
        .get<
          [string, number, number, number | null, string, number, string, ...OwnerColumns],
          CronRow
        >(
          `INSERT INTO cron_runs (job, due_at, started_at, ended_at, outcome, late, detail, pid, host)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (job, due_at) DO NOTHING
           RETURNING *`,
        )
        .get(
          args.job,
          millisOf(args.due_at),
          now,
          args.outcome === 'skipped' ? now : null,
          args.outcome,
          args.late ? 1 : 0,
          args.detail,
          ...(args.outcome === 'running' ? thisProcess() : NO_OWNER),
        ),
    )
    .immediate();
  return row ? toRun(row) : undefined;
}

const finishInput = z.strictObject({
  id: z.number().int().positive(),
  outcome: z.enum(['ok', 'error']),
  delivered: z.boolean().default(false),
  detail: text(2000).default(''),
});
export type FinishCronRunInput = z.input<typeof finishInput>;

/** Settle a claimed run: its end, outcome, and whether anything was delivered. */
export function finishCronRun(ctx: BrainContext, input: FinishCronRunInput): CronRunRecord {
  const args = parseInput(finishInput, input);
  const row = ctx.db
    .transaction(() =>
      ctx.q
        .get<[number, string, number, string, number], CronRow>(
          `UPDATE cron_runs SET ended_at = ?, outcome = ?, delivered = ?, detail = ?
           WHERE id = ? RETURNING *`,
        )
        .get(
          millisOf(isoNow(ctx.clock)),
          args.outcome,
          args.delivered ? 1 : 0,
          args.detail,
          args.id,
        ),
    )
    .immediate();
  if (!row) throw new BrainError('NOT_FOUND', `id: no cron run ${args.id}`);
  return toRun(row);
}

/**
 * Runs left `running` by a process that has ended (a crash, `kill -9`), each now `interrupted`;
 * runs whose owner lives, or cannot be checked (another host, no owner), stay as they are.
 */
export function interruptCronRuns(ctx: BrainContext): CronRunRecord[] {
  const now = millisOf(isoNow(ctx.clock));
  return ctx.db
    .transaction(() => {
      const rows = ctx.q
        .get<[], CronRow & { pid: number | null; host: string | null }>(
          `SELECT * FROM cron_runs WHERE outcome = 'running' ORDER BY id`,
        )
        .all();
      const mark = ctx.q.get<[number, string, number], CronRow>(
        `UPDATE cron_runs SET outcome = 'interrupted', ended_at = ?, detail = ?
         WHERE id = ? AND outcome = 'running' RETURNING *`,
      );
      return rows.flatMap((r) => {
        if (ownerState(r.pid, r.host, r.started_at) !== 'gone') return [];
        const why = `interrupted: process ${r.pid} ended`;
        const row = mark.get(now, r.detail ? `${r.detail}; ${why}` : why, r.id);
        return row ? [toRun(row)] : [];
      });
    })
    .immediate();
}

/**
 * Claim an interrupted run again, for this process, to run it once more: undefined when it is
 * not interrupted (another process took it) or was retried already.
 */
export function retryCronRun(ctx: BrainContext, id: number): CronRunRecord | undefined {
  const row = ctx.db
    .transaction(() =>
      ctx.q
        .get<[number, string, ...OwnerColumns, number, string], CronRow>(
          `UPDATE cron_runs SET outcome = 'running', ended_at = NULL, started_at = ?, detail = ?,
             pid = ?, host = ?
           WHERE id = ? AND outcome = 'interrupted' AND instr(detail, ?) = 0 RETURNING *`,
        )
        .get(millisOf(isoNow(ctx.clock)), RETRIED, ...thisProcess(), id, RETRIED),
    )
    .immediate();
  return row ? toRun(row) : undefined;
}

const runsInput = z.strictObject({
  job: jobName.optional(),
  limit: z.coerce.number().int().min(1).max(10_000).default(50),
});
export type CronRunsInput = z.input<typeof runsInput>;

/** A job's runs (or every job's), newest due time first. */
export function listCronRuns(ctx: BrainContext, input: CronRunsInput = {}): CronRunRecord[] {
  const args = parseInput(runsInput, input);
  const rows = args.job
    ? ctx.q
        .get<[string, number], CronRow>(
          `SELECT * FROM cron_runs WHERE job = ? ORDER BY due_at DESC, id DESC LIMIT ?`,
        )
        .all(args.job, args.limit)
    : ctx.q
        .get<[number], CronRow>(`SELECT * FROM cron_runs ORDER BY due_at DESC, id DESC LIMIT ?`)
        .all(args.limit);
  return rows.map(toRun);
}

const stateKey = text(300).min(1, 'must not be empty');

/** A named value the scheduler kept, or undefined when there is none. */
export function getSchedulerState(ctx: BrainContext, key: string): unknown {
  const k = parseInput(stateKey, key, { input: 'key' });
  const row = ctx.q
    .get<[string], { value: string }>(`SELECT value FROM scheduler_state WHERE key = ?`)
    .get(k);
  return row ? (JSON.parse(row.value) as unknown) : undefined;
}

/** Keep a named value (JSON) across restarts. */
export function setSchedulerState(ctx: BrainContext, key: string, value: unknown): void {
  const k = parseInput(stateKey, key, { input: 'key' });
  const json = JSON.stringify(value);
  if (json === undefined) throw new BrainError('INVALID_INPUT', 'value: must be JSON');
  ctx.db
    .transaction(() =>
      ctx.q
        .get(
          `INSERT INTO scheduler_state (key, value, updated_at) VALUES (?, ?, ?)
           ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
        )
        .run(k, json, millisOf(isoNow(ctx.clock))),
    )
    .immediate();
}

/** Keep a value only when none is kept yet; returns the value that is kept. */
export function initSchedulerState(ctx: BrainContext, key: string, value: unknown): unknown {
  const k = parseInput(stateKey, key, { input: 'key' });
  return ctx.db
    .transaction(() => {
      ctx.q
        .get(
          `INSERT INTO scheduler_state (key, value, updated_at) VALUES (?, ?, ?)
           ON CONFLICT (key) DO NOTHING`,
        )
        .run(k, JSON.stringify(value), millisOf(isoNow(ctx.clock)));
      const row = ctx.q
        .get<[string], { value: string }>(`SELECT value FROM scheduler_state WHERE key = ?`)
        .get(k)!;
      return JSON.parse(row.value) as unknown;
    })
    .immediate();
}
