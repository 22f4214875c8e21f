import { isoSql } from '../clock.js';
import { hasRankFunction, hasStaleRankBuild, rankExtensionPath } from '../db/rank-extension.js';
import { messageIdSql, threadIdSql } from '../ids.js';
import { agentCountsCheck } from './agent-counts-check.js';
import { attachmentsCheck } from './attachments-check.js';
import { ASSISTANT_CHECKS } from './assistant-checks.js';
import { MAX_LISTED, listed, type DoctorCheck } from './check.js';
import { ftsCheck } from './fts-check.js';
import { vectorsCheck } from './vectors-check.js';

export const integrityCheck: DoctorCheck = {
  name: 'integrity',
  description: 'SQLite integrity_check and foreign_key_check',
  run(db) {
    const rows = db.pragma('integrity_check(100)') as Array<{ integrity_check: string }>;
    const problems = rows.map((r) => r.integrity_check).filter((r) => r !== 'ok');
    const fk = db.pragma('foreign_key_check') as Array<{
      table: string;
      rowid: number;
      parent: string;
    }>;
    for (const f of fk)
      problems.push(`${f.table} row ${f.rowid} points at a missing ${f.parent} row`);
    return listed(problems);
  },
  repair(db) {
    // Damaged indexes are rebuilt from their tables; damage to the tables themselves cannot be
    // repaired here (the doctor's report says to restore the backup).
    db.exec('REINDEX');
    return ['rebuilt every index (REINDEX)'];
  },
};

const BAD_THREAD_COUNTERS = `
  SELECT t.id, ${threadIdSql('t.uid')} AS uid, t.message_count,
         ${isoSql('t.last_message_at')} AS last_message_at, count(m.id) AS n,
         max(m.created_at) AS last_ms, ${isoSql('max(m.created_at)')} AS last
  FROM threads t LEFT JOIN messages m ON m.thread_id = t.id
  GROUP BY t.id
  HAVING t.message_count <> count(m.id) OR (count(m.id) > 0 AND t.last_message_at < max(m.created_at))`;

interface BadThread {
  id: number;
  uid: string;
  message_count: number;
  last_message_at: string;
  n: number;
  last_ms: number | null;
  last: string | null;
}

export const threadCountersCheck: DoctorCheck = {
  name: 'thread_counters',
  description: "each thread's message_count and last_message_at against its messages",
  run(db) {
    const bad = db.prepare(BAD_THREAD_COUNTERS).all() as BadThread[];
    return listed(
      bad.map((t) =>
        t.message_count !== t.n
          ? `thread ${t.uid} counts ${t.message_count} messages but has ${t.n}`
          : `thread ${t.uid} was last active at ${t.last_message_at}, before its last message (${t.last})`,
      ),
    );
  },
  repair(db) {
    const bad = db.prepare(BAD_THREAD_COUNTERS).all() as BadThread[];
    const fix = db.prepare(
      `UPDATE threads SET message_count = @n, last_message_at = max(last_message_at, coalesce(@last, last_message_at))
       WHERE id = @id`,
    );
    for (const t of bad) fix.run({ id: t.id, n: t.n, last: t.last_ms });
    return bad.length ? [`recounted ${bad.length} thread(s)`] : [];
  },
};

const MESSAGE_ID = messageIdSql('m.uid');

/** Each rule: the SQL listing rows that break it, and how to say so. */
const DELIVERY_RULES = [
  {
    sql: `SELECT ${MESSAGE_ID} AS message, a.name AS agent FROM messages m JOIN agents a ON a.id = m.to_agent
          WHERE m.to_agent IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.message_id = m.id AND d.agent_id = m.to_agent)`,
    say: (r: Row) => `message ${r.message} was never delivered to its recipient ${r.agent}`,
  },
  {
    sql: `SELECT ${MESSAGE_ID} AS message, a.name AS agent FROM deliveries d JOIN messages m ON m.id = d.message_id
          JOIN agents a ON a.id = d.agent_id
          WHERE m.to_agent IS NOT NULL AND d.agent_id <> m.to_agent`,
    say: (r: Row) =>
      `message ${r.message} is addressed to someone else but delivered to ${r.agent}`,
  },
  {
    sql: `SELECT ${MESSAGE_ID} AS message, a.name AS agent FROM deliveries d JOIN messages m ON m.id = d.message_id
          JOIN agents a ON a.id = d.agent_id
          WHERE m.to_agent IS NULL AND d.agent_id = m.from_agent`,
    say: (r: Row) => `broadcast ${r.message} is delivered to its own sender ${r.agent}`,
  },
  {
    sql: `SELECT ${MESSAGE_ID} AS message, a.name AS agent FROM acks k JOIN deliveries d
            ON d.message_id = k.message_id AND d.agent_id = k.agent_id
          JOIN messages m ON m.id = k.message_id JOIN agents a ON a.id = k.agent_id
          WHERE d.read_at IS NULL`,
    say: (r: Row) => `message ${r.message} is acknowledged by ${r.agent} but still unread`,
  },
];
interface Row {
  message: string;
  agent: string;
}

export const deliveriesCheck: DoctorCheck = {
  name: 'deliveries',
  description:
    'every direct message delivered to its recipient only, broadcasts not to their sender, acked means read',
  run(db) {
    const problems: string[] = [];
    let total = 0;
    for (const rule of DELIVERY_RULES) {
      const rows = db.prepare(rule.sql).all() as Row[];
      total += rows.length;
      problems.push(...rows.slice(0, MAX_LISTED).map(rule.say));
    }
    return listed(problems, total);
  },
  // A delivery to someone other than a direct message's recipient is reported, not removed:
  // whether it was read is a fact only a person can weigh.
  repair(db) {
    const missing = db
      .prepare(
        `INSERT INTO deliveries (message_id, agent_id)
         SELECT m.id, m.to_agent FROM messages m WHERE m.to_agent IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.message_id = m.id AND d.agent_id = m.to_agent)`,
      )
      .run().changes;
    const selfBroadcast = db
      .prepare(
        `DELETE FROM deliveries WHERE (message_id, agent_id) IN
           (SELECT m.id, m.from_agent FROM messages m WHERE m.to_agent IS NULL)`,
      )
      .run().changes;
    const acked = db
      .prepare(
        `UPDATE deliveries SET read_at = (SELECT k.created_at FROM acks k
           WHERE k.message_id = deliveries.message_id AND k.agent_id = deliveries.agent_id)
         WHERE read_at IS NULL AND EXISTS (SELECT 1 FROM acks k
           WHERE k.message_id = deliveries.message_id AND k.agent_id = deliveries.agent_id)`,
      )
      .run().changes;
    const done: string[] = [];
    if (missing) done.push(`delivered ${missing} direct message(s) to their recipients (unread)`);
    if (selfBroadcast)
      done.push(`removed ${selfBroadcast} delivery(ies) of broadcasts to their sender`);
    if (acked) done.push(`marked ${acked} acknowledged delivery(ies) read`);
    return done;
  },
};

/** What `brain doctor` checks, in order. A check added here is run, reported and repaired like the others. */
/** Not the data but the install: whether search ranks with the compiled function. */
export const rankingCheck: DoctorCheck = {
  name: 'ranking',
  description: 'the compiled ranking function (brain_bm25) is loaded',
  run(db) {
    if (hasRankFunction(db)) return [];
    if (hasStaleRankBuild(db)) {
      return [
        `${rankExtensionPath()} was built from older sources than this brain's code and is not ` +
          "used: search ranks with FTS5's bm25(), slower on big brains. Run `npm run build:native` " +
          "(or `npm install`) in brain's folder.",
      ];
    }
    return [
      `${rankExtensionPath()} was not built or not loaded: search ranks with FTS5's bm25(), ` +
        'slower on big brains. With a C compiler and Python, run `npm run build:native` in ' +
        "brain's folder.",
    ];
  },
};

export const DOCTOR_CHECKS: readonly DoctorCheck[] = [
  integrityCheck,
  ftsCheck,
  threadCountersCheck,
  agentCountsCheck,
  deliveriesCheck,
  vectorsCheck,
  attachmentsCheck,
  ...ASSISTANT_CHECKS,
  rankingCheck,
];

export type { DoctorCheck } from './check.js';
