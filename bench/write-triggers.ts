/**
 * What migration 0016's triggers cost the writes they ride on: sends (direct and broadcast),
 * reads and acks timed on a fresh brain with the triggers, and on one where they were dropped.
 * Rounds alternate between the two so that other work on the machine falls on both alike.
 *   npx tsx bench/write-triggers.ts [rounds]
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openBrain } from '../src/index.js';

const rounds = Number(process.argv[2] ?? 3);
const TRIGGERS = [
  'messages_count_sent',
  'messages_uncount_sent',
  'deliveries_count_received',
  'deliveries_uncount_received',
  'deliveries_log_read',
  'acks_log',
];
const N = 2000;

async function run(withTriggers: boolean): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'brain-triggers-'));
  const dbPath = join(dir, 'brain.db');
  try {
    (await openBrain({ dbPath })).close(); // create and migrate
    if (!withTriggers) {
      const db = new Database(dbPath);
      for (const t of TRIGGERS) db.exec(`DROP TRIGGER ${t}`);
      db.close();
    }
    const brain = await openBrain({ dbPath });
    for (let i = 0; i < 20; i++) brain.touchAgent(`agent-${i}`);
    // CPU time of this process (user + system), which other work on the machine disturbs less
    // than wall time; it includes SQLite's work and the WAL writes' system calls.
    const time = (fn: (i: number) => void, n: number) => {
      const c0 = process.cpuUsage();
      for (let i = 0; i < n; i++) fn(i);
      const c = process.cpuUsage(c0);
      return (c.user + c.system) / n; // µs per call
    };
    const thread = brain.messages.send({ from: 'agent-0', to: 'agent-1', body: 'start' }).thread_id;
    const ids: string[] = [];
    const out = {
      'send, direct': time((i) => {
        ids.push(
          brain.messages.send({ from: 'agent-0', to: 'agent-1', thread, body: `m ${i}` }).id,
        );
      }, N),
      'send, broadcast to 20': time(
        (i) => brain.messages.send({ from: 'agent-2', thread, body: `all ${i}` }),
        N / 4,
      ),
      'send, broadcast, in a batch':
        time(
          () =>
            brain.batch(() => {
              for (let i = 0; i < 100; i++)
                brain.messages.send({ from: 'agent-3', thread, body: `b ${i}` });
            }),
          N / 200,
        ) / 100,
      'mark read': time(
        (i) => brain.messages.markRead({ message_id: ids[i]!, agent: 'agent-1' }),
        N,
      ),
      ack: time((i) => brain.messages.ack({ message_id: ids[i]!, agent: 'agent-1' }), N),
    };
    brain.close();
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const results: Record<string, { on: number[]; off: number[] }> = {};
for (let r = 0; r < rounds; r++) {
  for (const on of [true, false]) {
    for (const [name, us] of Object.entries(await run(on))) {
      results[name] ??= { on: [], off: [] };
      results[name][on ? 'on' : 'off'].push(us);
    }
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`CPU µs per write, median of ${rounds} rounds (${N} direct sends, reads, acks each)`);
console.log('write'.padEnd(26) + 'triggers'.padStart(10) + 'dropped'.padStart(10));
for (const [name, { on, off }] of Object.entries(results))
  console.log(
    name.padEnd(26) + median(on).toFixed(1).padStart(10) + median(off).toFixed(1).padStart(10),
  );
