import type { Database } from 'better-sqlite3';

/** What a check may need besides the database: the time now (ms), from the brain's clock. */
export interface CheckContext {
  now: number;
}

/**
 * One thing `brain doctor` verifies. `run` lists problems (empty when all is well) and never
 * changes data; `repair`, when a check has one, rebuilds what can be rebuilt from the base rows
 * and says what it did. Repairs run inside one immediate transaction each, after a backup.
 */
export interface DoctorCheck {
  name: string;
  description: string;
  run(db: Database, at: CheckContext): string[];
  repair?(db: Database, at: CheckContext): string[];
}

/** At most this many problems are listed per check; the count says how many there were. */
export const MAX_LISTED = 20;

export function listed(problems: string[], total = problems.length): string[] {
  const shown = problems.slice(0, MAX_LISTED);
  if (total > shown.length) shown.push(`… and ${total - shown.length} more`);
  return shown;
}
