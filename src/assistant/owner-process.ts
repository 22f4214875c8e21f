import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * The process that owns a piece of work under way (a `running` cron run, a `pending` approval, a
 * lease), as its row records it: pid on host. Such work is under way only while that process
 * lives; `brain doctor` asks here whether it still does.
 */
export type OwnerColumns = [pid: number | null, host: string | null];

export const NO_OWNER: OwnerColumns = [null, null];

/** This process, as a row it owns records it. */
export function thisProcess(): OwnerColumns {
  return [process.pid, hostname()];
}

/**
 * `gone`: the owner is known to have ended: a process of this host that no longer exists, or
 * whose pid now belongs to a process started after the work was (the pid was reused). `alive`:
 * it may still be working. `unknown`: nothing can be checked (no owner recorded, or another host).
 */
export type OwnerState = 'alive' | 'gone' | 'unknown';

/**
 * Slack when comparing a process's start with the time its work began: the kernel's boot time
 * has a resolution of one second, and clocks are set now and then.
 */
const START_SLACK_MS = 5000;

/** Whether the owner (pid, host) of work that began at `sinceMs` can still be doing it. */
export function ownerState(pid: number | null, host: string | null, sinceMs: number): OwnerState {
  if (pid === null || host === null || host !== hostname()) return 'unknown';
  if (pid === process.pid) return 'alive';
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: the process exists but belongs to another user.
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return 'gone';
  }
  const started = processStartMs(pid);
  if (started !== undefined && started > sinceMs + START_SLACK_MS) return 'gone';
  return 'alive';
}

/** USER_HZ: the unit of /proc's times; 100 on every Linux that ships (`getconf CLK_TCK`). */
const CLOCK_TICKS_PER_SECOND = 100;

/**
 * When a process of this host started (ms since 1970), from Linux's /proc; undefined where there
 * is no /proc or the process is gone.
 */
export function processStartMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 is the command in parentheses and may hold spaces: count fields after its end.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const startTicks = Number(fields[19]); // field 22, starttime: ticks after boot
    const boot = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
    if (!boot || !Number.isFinite(startTicks)) return undefined;
    return Number(boot[1]) * 1000 + (startTicks * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch (err) {
    // No /proc (macOS, BSD), one that hides other users' processes, or the process ended
    // meanwhile: its start cannot be known here.
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EACCES' || code === 'ESRCH') return undefined;
    throw err;
  }
}
