import { opGoals } from './goals.js';
import type { OpFigures } from './measure.js';
import type { BenchDocument } from './run.js';

const n = (x: number, digits = 0) =>
  x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const ms = (x: number) => (x < 1 ? x.toFixed(4) : x < 100 ? x.toFixed(2) : x.toFixed(0));
const mb = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MiB`;

/** What each operation does, in a few words. */
const WHAT: Record<string, string> = {
  send: 'send a reply in a thread (its own transaction)',
  send_full: 'the same with BRAIN_DURABILITY=full (fsync per commit)',
  poll: 'unread count of an agent',
  poll_backlog: 'unread count of the agent with the largest backlog',
  read_unread: 'read and mark read exactly 10 unread',
  thread_history: 'first 50 messages of the longest thread',
  thread_history_last: 'last 50 messages of it (OFFSET)',
  search_fts_first: 'the first search of each of 50 queries on a new connection',
  search_fts: 'one of 50 queries, by words, on a connection that searched them before',
  search_vector: 'one of 50 queries, by vectors',
  search_hybrid: 'one of 50 queries, words + vectors',
  find_provenance: 'knowledge → source message, thread, context',
  node_process: '`node -e 0`: the floor of every process below, on this run',
  poll_process: '`brain poll` as a whole process',
  search_process: '`brain search WORDS` as a whole process',
  provenance_process: '`brain provenance ID` as a whole process',
  thread_process: '`brain thread ID` (first page) as a whole process',
  send_process: '`brain send` (a reply) as a whole process',
  read_process: '`brain read` as a whole process',
};

function row(name: string, f: OpFigures, goals: string): string {
  return `${name.padEnd(20)}${ms(f.p50_ms).padStart(10)}${ms(f.p99_ms).padStart(10)}${n(f.ops_per_s).padStart(11)}  ${goals || WHAT[name] || ''}`;
}

/** The table for people. */
export function formatReport(doc: BenchDocument): string[] {
  const b = doc.build;
  const out: string[] = [];
  out.push(
    `brain bench: ${n(doc.messages)} messages, ${n(b.stm)} STM entries, ${n(b.atoms)} atoms (${n(b.links)} links), ${n(b.threads)} threads, ${n(b.broadcasts)} broadcasts, ${n(b.unread_total)} unread deliveries`,
  );
  out.push(
    `built in ${b.seconds.toFixed(1)} s (${n(b.messages_per_s)} messages/s) from ${b.corpus}; ${b.body_bytes_per_message.toFixed(0)} bytes of body per message`,
  );
  out.push(
    `machine: ${doc.machine.cores} cores (${doc.machine.cpu}), node ${doc.machine.node}, ${doc.machine.date.slice(0, 10)}`,
  );
  out.push('');
  const size = doc.goals.bytes_per_message!;
  out.push(
    `database: ${mb(doc.db_bytes)}, ${n(doc.bytes_per_message)} bytes/message before vectors (goal ≤ 600: ${size.met ? 'met' : 'MISSED'})`,
  );
  const top = Object.entries(doc.bytes_by_object).slice(0, 6);
  out.push(`  largest: ${top.map(([name, bytes]) => `${name} ${mb(bytes)}`).join(', ')}`);
  if (doc.vectors) {
    out.push(
      `vectors: ${n(doc.vectors.items)} items (${doc.vectors.model}) embedded in ${doc.vectors.seconds.toFixed(1)} s; database then ${mb(doc.vectors.db_bytes)}`,
    );
  }
  out.push('');
  out.push(
    `${'operation'.padEnd(20)}${'p50 ms'.padStart(10)}${'p99 ms'.padStart(10)}${'ops/s'.padStart(11)}  goal at 1M messages`,
  );
  for (const [name, f] of Object.entries(doc.ops)) out.push(row(name, f, opGoals(doc.goals, name)));
  out.push(
    `  (poll: ${doc.agents.poller} with ${n(doc.agents.poller_unread)} unread; poll_backlog: ${doc.agents.backlog} with ${n(doc.agents.backlog_unread)})`,
  );
  const slow = [...doc.search_queries].sort((x, y) => y.median_ms - x.median_ms).slice(0, 5);
  out.push(
    `  slowest queries: ${slow.map((q) => `"${q.query}" ${ms(q.median_ms)} ms`).join(', ')}`,
  );
  out.push('');
  const base = doc.baseline;
  out.push(`baseline: ${base.design}; ${n(base.messages)} messages, ${mb(base.file_bytes)}`);
  out.push(
    `${'operation'.padEnd(20)}${'p50 ms'.padStart(10)}${'p99 ms'.padStart(10)}${'ops/s'.padStart(11)}  brain p50 / ratio`,
  );
  for (const op of ['send', 'poll'] as const) {
    const g = doc.goals[`baseline_${op}_ratio`]!;
    out.push(
      `${op.padEnd(20)}${ms(base.ops[op].p50_ms).padStart(10)}${ms(base.ops[op].p99_ms).padStart(10)}${n(base.ops[op].ops_per_s).padStart(11)}  ${ms(doc.ops[op]!.p50_ms)} ms: ${n(base.ratios[op])}× (goal ≥ 100×: ${g.met ? 'met' : 'MISSED'})`,
    );
  }
  if (doc.ops.send_full) {
    out.push(
      `  against send_full (fsync per commit, as the JSON file): ${n(base.ratios.send_full)}×`,
    );
  }
  out.push('');
  const missed = Object.values(doc.goals).filter((g) => !g.met);
  const scale =
    doc.messages === 1_000_000
      ? ''
      : ` (the goals are set for 1,000,000 messages; this run has ${n(doc.messages)})`;
  out.push(
    missed.length === 0
      ? `every goal met${scale}`
      : `goals missed: ${missed.map((g) => g.goal).join('; ')}${scale}`,
  );
  return out;
}
