import type { Database } from 'better-sqlite3';
import { z } from 'zod';
import type { Clock } from '../clock.js';
import { describeStorageFailure } from '../db/storage-errors.js';
import { parseInput, text } from '../validation.js';
import { backupDatabase, type BackupResult } from './backup.js';
import type { CheckContext } from './check.js';
import { DOCTOR_CHECKS, type DoctorCheck } from './checks.js';

export interface CheckReport {
  name: string;
  description: string;
  ok: boolean;
  /** What was wrong (before repair, when repairing). */
  problems: string[];
  /** What --repair did. */
  repairs: string[];
  /** What is still wrong after repair (empty when repaired or not repairing). */
  remaining: string[];
}

export interface DoctorReport {
  /** Every check passes (after repair, when repairing). */
  ok: boolean;
  checks: CheckReport[];
  /** The backup taken before repairing, or null when nothing was repaired. */
  backup: BackupResult | null;
}

const doctorInput = z.strictObject({
  repair: z.boolean().default(false),
  /** Where --repair saves the database first; default `<db>.bak-<time>`. */
  backup_path: text(4096).optional(),
});
export type DoctorInput = z.input<typeof doctorInput>;

/**
 * Run every check. With `repair`, when something is wrong: back the database up, run each
 * failing check's repair in its own immediate transaction, and check again.
 */
export async function runDoctor(
  db: Database,
  dbPath: string,
  clock: Clock,
  input: DoctorInput = {},
  checks: readonly DoctorCheck[] = DOCTOR_CHECKS,
): Promise<DoctorReport> {
  const args = parseInput(doctorInput, input);
  const at = { now: clock().getTime() };
  const first = checks.map((check) => ({ check, problems: safeRun(check, db, at) }));
  const failing = first.filter((r) => r.problems.length > 0);
  if (!args.repair || failing.length === 0) {
    const reports = first.map(({ check, problems }) => report(check, problems, [], problems));
    return { ok: failing.length === 0, checks: reports, backup: null };
  }

  const stamp = clock().toISOString().replace(/[:.]/g, '-');
  const backup = await backupDatabase(db, dbPath, args.backup_path ?? `${dbPath}.bak-${stamp}`, {
    check: false,
  });
  const repairs = new Map<DoctorCheck, string[]>();
  for (const { check } of failing) {
    if (!check.repair) continue;
    const repairFn = check.repair.bind(check);
    repairs.set(check, db.transaction(() => repairFn(db, at)).immediate());
  }
  const reports = first.map(({ check, problems }) => {
    const remaining = problems.length ? safeRun(check, db, at) : [];
    return report(check, problems, repairs.get(check) ?? [], remaining);
  });
  return { ok: reports.every((r) => r.remaining.length === 0), checks: reports, backup };
}

/** A check that cannot even run (say, the file is too damaged to read) reports that as its problem. */
function safeRun(check: DoctorCheck, db: Database, at: CheckContext): string[] {
  try {
    return check.run(db, at);
  } catch (err) {
    return [`could not run: ${describeStorageFailure(err) ?? (err as Error).message}`];
  }
}

function report(
  check: DoctorCheck,
  problems: string[],
  repairs: string[],
  remaining: string[],
): CheckReport {
  return {
    name: check.name,
    description: check.description,
    ok: remaining.length === 0,
    problems,
    repairs,
    remaining,
  };
}
