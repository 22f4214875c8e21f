import type { DoctorCheck } from './check.js';
import { listed } from './check.js';

// Each agent's kept counts beside a fresh count of its messages and deliveries (two grouped scans).
const COUNTS = `
  WITH sent AS (SELECT from_agent AS agent, count(*) AS n FROM messages GROUP BY from_agent),
       received AS (SELECT agent_id AS agent, count(*) AS n FROM deliveries GROUP BY agent_id)
  SELECT a.id, a.name, coalesce(c.sent, 0) AS kept_sent, coalesce(s.n, 0) AS sent,
         coalesce(c.received, 0) AS kept_received, coalesce(r.n, 0) AS received
  FROM agents a LEFT JOIN agent_counts c ON c.agent_id = a.id
  LEFT JOIN sent s ON s.agent = a.id LEFT JOIN received r ON r.agent = a.id`;

interface Counts {
  id: number;
  name: string;
  kept_sent: number;
  sent: number;
  kept_received: number;
  received: number;
}

/** The per-agent sent and received counts (migration 0016's triggers) against the rows. */
export const agentCountsCheck: DoctorCheck = {
  name: 'agent_counts',
  description: "each agent's sent and received counts against its messages and deliveries",
  run(db) {
    const rows = db.prepare(COUNTS).all() as Counts[];
    const problems: string[] = [];
    for (const r of rows) {
      if (r.kept_sent !== r.sent)
        problems.push(`${r.name} is counted as sending ${r.kept_sent} messages but sent ${r.sent}`);
      if (r.kept_received !== r.received)
        problems.push(
          `${r.name} is counted as receiving ${r.kept_received} messages but received ${r.received}`,
        );
    }
    return listed(problems);
  },
  repair(db) {
    const rows = (db.prepare(COUNTS).all() as Counts[]).filter(
      (r) => r.kept_sent !== r.sent || r.kept_received !== r.received,
    );
    const write = db.prepare(
      `INSERT INTO agent_counts (agent_id, sent, received) VALUES (?, ?, ?)
       ON CONFLICT (agent_id) DO UPDATE SET sent = excluded.sent, received = excluded.received`,
    );
    for (const r of rows) write.run(r.id, r.sent, r.received);
    return rows.length ? [`recounted the messages of ${rows.length} agent(s)`] : [];
  },
};
