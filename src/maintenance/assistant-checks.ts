import type { Database } from 'better-sqlite3';
import { hostname } from 'node:os';
import { isoOfMillis } from '../clock.js';
import { threadIdSql } from '../ids.js';
import { ownerState } from '../assistant/owner-process.js';
import { listed, type DoctorCheck } from './check.js';

/**
 * Work the assistant left under way: a cron run `running`, a lease, an approval `pending`. Each
 * is under way only while the process that owns it lives (its pid and host are recorded, see
 * src/assistant/owner-process.ts). When that process is known to have ended, the work was cut
 * short; when it cannot be checked (another host, or a row from before migration 0019), only age
 * tells: nothing the assistant does stays under way for a day (an approval waits at most
 * approvalTimeoutSeconds, 86,400 s), so past that it was cut short too.
 */
export const UNOWNED_AFTER_MS = 86_400_000 + 60_000;

interface Owned {
  pid: number | null;
  host: string | null;
  since: number;
}

/** Why this work is no longer under way, or undefined while it may be. */
function cutShort(w: Owned, now: number): string | undefined {
  const state = ownerState(w.pid, w.host, w.since);
  if (state === 'gone') return `its process ${w.pid} on this host has ended`;
  if (state === 'unknown' && now - w.since > UNOWNED_AFTER_MS) {
    const whose =
      w.pid === null
        ? 'no process is recorded for it'
        : `its process ${w.pid} on ${w.host} cannot be checked from ${hostname()}`;
    return `${whose}, and it began more than a day ago`;
  }
  return undefined;
}

const at = (ms: number) => isoOfMillis(ms)!;

interface RunRow extends Owned {
  id: number;
  job: string;
  due_at: number;
}

function stuckRuns(db: Database, now: number) {
  const rows = db
    .prepare(
      `SELECT id, job, due_at, started_at AS since, pid, host FROM cron_runs
       WHERE outcome = 'running' ORDER BY id`,
    )
    .all() as RunRow[];
  return rows.flatMap((r) => {
    const why = cutShort(r, now);
    return why ? [{ ...r, why }] : [];
  });
}

export const cronRunsCheck: DoctorCheck = {
  name: 'cron_runs',
  description: 'no cron run is left "running" by a process that ended (--repair: interrupted)',
  run(db, { now }) {
    return listed(
      stuckRuns(db, now).map(
        (r) =>
          `cron run ${r.id} of ${r.job} (due ${at(r.due_at)}) is "running" since ${at(r.since)}, but ${r.why}`,
      ),
    );
  },
  repair(db, { now }) {
    const stuck = stuckRuns(db, now);
    const mark = db.prepare(
      `UPDATE cron_runs SET outcome = 'interrupted', ended_at = ?, detail = ?
       WHERE id = ? AND outcome = 'running'`,
    );
    for (const r of stuck) mark.run(now, `interrupted: ${r.why} (brain doctor --repair)`, r.id);
    return stuck.length ? [`marked ${stuck.length} cron run(s) interrupted`] : [];
  },
};

interface LeaseRow {
  key: string;
  pid: number;
  host: string;
  acquired_at: number;
  expires_at: number;
}

/** A lease whose holder ended, or (holder unknown) that expired: held by nobody. */
function staleLeases(db: Database, now: number) {
  const rows = db
    .prepare(`SELECT key, pid, host, acquired_at, expires_at FROM leases ORDER BY key`)
    .all() as LeaseRow[];
  return rows.flatMap((l) => {
    const state = ownerState(l.pid, l.host, l.acquired_at);
    if (state === 'gone') return [{ ...l, why: `its holder, process ${l.pid}, has ended` }];
    if (state === 'unknown' && l.expires_at < now)
      return [{ ...l, why: `it expired at ${at(l.expires_at)} (holder ${l.pid} on ${l.host})` }];
    return [];
  });
}

export const leasesCheck: DoctorCheck = {
  name: 'leases',
  description: 'no lease (one turn per session) is held by a process that ended',
  run(db, { now }) {
    return listed(staleLeases(db, now).map((l) => `lease ${l.key} is held, but ${l.why}`));
  },
  repair(db, { now }) {
    const stale = staleLeases(db, now);
    const free = db.prepare(
      `DELETE FROM leases WHERE key = ? AND pid = ? AND host = ? AND acquired_at = ?`,
    );
    for (const l of stale) free.run(l.key, l.pid, l.host, l.acquired_at);
    return stale.length ? [`freed ${stale.length} lease(s)`] : [];
  },
};

interface AskRow extends Owned {
  id: number;
  tool: string;
  session: string | null;
}

function orphanedAsks(db: Database, now: number) {
  const rows = db
    .prepare(
      `SELECT id, tool, session, asked_at AS since, pid, host FROM approvals
       WHERE decision = 'pending' ORDER BY id`,
    )
    .all() as AskRow[];
  return rows.flatMap((a) => {
    const why = cutShort(a, now);
    return why ? [{ ...a, why }] : [];
  });
}

export const approvalsCheck: DoctorCheck = {
  name: 'approvals',
  description: 'no ask is left "pending" with no process to take the answer (--repair: timeout)',
  run(db, { now }) {
    return listed(
      orphanedAsks(db, now).map(
        (a) =>
          `approval ${a.id} (${a.tool}${a.session ? ` in ${a.session}` : ''}) is "pending" since ${at(a.since)}, but ${a.why}`,
      ),
    );
  },
  // Settled as a timeout, as an ask nobody answered in time is: the call it asked for never ran.
  repair(db, { now }) {
    const orphaned = orphanedAsks(db, now);
    const settle = db.prepare(
      `UPDATE approvals SET decision = 'timeout', decided_by = 'owner', decided_at = ?, reason = ?
       WHERE id = ? AND decision = 'pending'`,
    );
    for (const a of orphaned) settle.run(now, `no answer: ${a.why} (brain doctor --repair)`, a.id);
    return orphaned.length ? [`settled ${orphaned.length} pending approval(s) as timed out`] : [];
  },
};

const LOST_SESSIONS = `
  SELECT s.id, s.name, ${threadIdSql('t.uid')} AS thread, s.created_at,
         (SELECT o.name FROM session_threads x JOIN sessions o ON o.id = x.session_id
          WHERE x.thread_id = s.thread_id) AS holder
  FROM sessions s JOIN threads t ON t.id = s.thread_id
  WHERE NOT EXISTS (SELECT 1 FROM session_threads st
                    WHERE st.session_id = s.id AND st.thread_id = s.thread_id)
  ORDER BY s.id`;

interface LostSession {
  id: number;
  name: string;
  thread: string;
  created_at: number;
  holder: string | null;
}

export const sessionsCheck: DoctorCheck = {
  name: 'sessions',
  description: "each session's current thread is in its history (else listings miss it)",
  run(db) {
    const lost = db.prepare(LOST_SESSIONS).all() as LostSession[];
    return listed(
      lost.map((s) =>
        s.holder
          ? `session ${s.name}'s thread ${s.thread} is in the history of session ${s.holder}`
          : `session ${s.name}'s thread ${s.thread} is not in its history`,
      ),
    );
  },
  // A thread another session holds is reported, not moved: which of the two it is, only a
  // person can say.
  repair(db) {
    const lost = (db.prepare(LOST_SESSIONS).all() as LostSession[]).filter((s) => !s.holder);
    const add = db.prepare(
      `INSERT INTO session_threads (session_id, thread_id, started_at)
       SELECT id, thread_id, created_at FROM sessions WHERE id = ?`,
    );
    for (const s of lost) add.run(s.id);
    return lost.length
      ? [`restored ${lost.length} session(s)' current thread to their history`]
      : [];
  },
};

/** The assistant's tables, checked by `brain doctor` after the messages and knowledge. */
export const ASSISTANT_CHECKS: readonly DoctorCheck[] = [
  cronRunsCheck,
  leasesCheck,
  approvalsCheck,
  sessionsCheck,
];
