/**
 * Server render time of `brain ui` pages on a big brain: each page's function (the library reads
 * and the HTML) timed in-process, without the socket; then the change watcher's check after another
 * connection commits (what every poll of the live pages costs when something was written). Build
 * the brain once with `nice node dist/bin/main.js bench --messages 1000000 --dir DIR --keep`, then:
 *   npx tsx bench/ui.ts DIR/bench.db [runs]
 * The watcher part writes (an agent's last-seen time) and so migrates the file: run it on a copy.
 * Goal: ≤ 100 ms per page at 1,000,000 messages.
 */
import Database from 'better-sqlite3';
import { performance } from 'node:perf_hooks';
import { openBrain, watchBrain, type WatchTimers } from '../src/index.js';
import type { PageContext } from '../ui/layout.js';
import { agentsPage } from '../ui/pages/agents.js';
import { inboxPage } from '../ui/pages/inbox.js';
import { provenancePage } from '../ui/pages/provenance.js';
import { searchPage } from '../ui/pages/search.js';
import { startPage } from '../ui/pages/start.js';
import { threadPage, threadsPage } from '../ui/pages/threads.js';
import { Query } from '../ui/query.js';

const db = process.argv[2];
if (!db) {
  console.error('usage: npx tsx bench/ui.ts BRAIN.db [runs]');
  process.exit(2);
}
const runs = Number(process.argv[3] ?? 15);

// Which thread, agent, atom and memory to show: chosen with plain SQL on a read-only connection
// (a benchmark may; the pages go through the library only).
const sql = new Database(db, { readonly: true });
const pick = <T>(query: string) => sql.prepare(query).get() as T;
const hex = (n: number) => n.toString(16).padStart(12, '0');
const uuid = (b: Buffer) => {
  const h = b.toString('hex');
  return `thr_${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};
const bigThread = pick<{ uid: Buffer; message_count: number }>(
  `SELECT uid, message_count FROM threads ORDER BY message_count DESC LIMIT 1`,
);
const inboxAgent = pick<{ name: string; n: number }>(
  `SELECT a.name, count(*) AS n FROM deliveries d JOIN agents a ON a.id = d.agent_id
   WHERE d.read_at IS NULL GROUP BY d.agent_id ORDER BY n DESC LIMIT 1`,
);
const linkedAtom = pick<{ uid: string }>(
  `SELECT t.uid FROM atom_links l JOIN atoms t ON t.id = l.from_atom
   WHERE t.source_message_id IS NOT NULL GROUP BY l.from_atom ORDER BY count(*) DESC LIMIT 1`,
);
const sourcedStm = pick<{ uid: string }>(
  `SELECT uid FROM stm WHERE source_message_id IS NOT NULL ORDER BY id DESC LIMIT 1`,
);
const message = pick<{ uid: number }>(
  `SELECT m.uid FROM messages m WHERE m.id = (SELECT source_message_id FROM atoms WHERE uid = '${linkedAtom.uid}')`,
);
const counts = pick<{ messages: number }>(`SELECT max(id) AS messages FROM messages`);
sql.close();

const brain = await openBrain({ dbPath: db, readonly: true });
const ctx: PageContext = { assistant: false, csrf: 'x' };
const q = (s = '') => new Query(new URLSearchParams(s));
const thread = uuid(bigThread.uid);

const pages: Array<[string, () => unknown]> = [
  ['start', () => startPage(brain, ctx)],
  ['threads (list)', () => threadsPage(brain, ctx, q())],
  [
    `thread, latest page (${bigThread.message_count} messages)`,
    () => threadPage(brain, ctx, thread, q()),
  ],
  ['thread, first page', () => threadPage(brain, ctx, thread, q('offset=0'))],
  [
    `inbox (${inboxAgent.name}, ${inboxAgent.n} unread)`,
    () => inboxPage(brain, ctx, inboxAgent.name),
  ],
  ['search "deploy failed"', () => searchPage(brain, ctx, q('q=deploy+failed'))],
  ['search "what did you do"', () => searchPage(brain, ctx, q('q=what+did+you+do'))],
  [
    'search "marathon" (messages only)',
    () => searchPage(brain, ctx, q('q=marathon&types=message')),
  ],
  ['provenance of an atom (chain graph)', () => provenancePage(brain, ctx, linkedAtom.uid)],
  ['provenance of a memory', () => provenancePage(brain, ctx, sourcedStm.uid)],
  ['provenance of a message', () => provenancePage(brain, ctx, `syn_${hex(message.uid)}`)],
  ['agents (exact counts, latest 3 each)', () => agentsPage(brain, ctx)],
];

console.log(
  `brain ui render time, ${counts.messages.toLocaleString('en-US')} messages, ${runs} runs each (ms);`,
);
console.log(
  "wall = elapsed; cpu = this process's CPU time (less disturbed by other work on the machine)",
);
console.log(
  'page'.padEnd(50) + 'wall p50'.padStart(10) + 'wall p90'.padStart(10) + 'cpu p50'.padStart(10),
);
for (const [name, render] of pages) {
  await render(); // warm: statements prepared, as in a running server
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < runs; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await render();
    wall.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  const at = (xs: number[], p: number) =>
    [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!.toFixed(1);
  console.log(
    name.padEnd(50) +
      at(wall, 0.5).padStart(10) +
      at(wall, 0.9).padStart(10) +
      at(cpu, 0.5).padStart(10),
  );
}

// The watcher: a commit by another connection (an agent's last-seen time: nothing the watcher
// reports), then one check, which reads data_version and every high-water mark's range.
const writer = await openBrain({ dbPath: db });
let tick: (() => void) | undefined;
const timers: WatchTimers = {
  setInterval: (fn) => (tick = fn),
  clearInterval: () => (tick = undefined),
};
const watcher = watchBrain(brain, { timers });
const stop = watcher.onChanges(() => {});
const checks: number[] = [];
for (let i = 0; i < runs * 10; i++) {
  writer.touchAgent('bench-watcher');
  const t0 = performance.now();
  tick?.();
  checks.push(performance.now() - t0);
}
stop();
writer.close();
checks.sort((a, b) => a - b);
console.log(
  'watcher check after a commit elsewhere'.padEnd(50) +
    checks[Math.floor(checks.length / 2)]!.toFixed(3).padStart(10) +
    checks[Math.floor(checks.length * 0.9)]!.toFixed(3).padStart(10),
);
brain.close();
