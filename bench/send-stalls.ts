/**
 * The stalls of sends: each `brain.send`'s time (its statements, the commit with FTS5's merging,
 * the WAL keeper's checkpoint after it), sent in pairs as the assistant's turns send them, with
 * or without the idle upkeep (`brain.upkeep.maintain()`) between pairs that `brain chat`, `brain agent`
 * and the MCP servers run every 2 s. Prints the distribution, how many sends took over 30 ms, the
 * time the upkeep took (idle time, not counted in the sends) and the word index's segments after.
 *
 * Usage: npx tsx bench/send-stalls.ts --db FILE [--sends 3000] [--upkeep]
 * The brain is used as it is and written to: give it a copy (e.g. of a brain built by
 * `node dist/bin/main.js bench --messages 1000000 --keep --dir /tmp/al-1m`).
 */
import { parseArgs } from 'node:util';
import { connectionOf } from '../src/brain.js';
import { openBrain } from '../src/index.js';
import { readFtsStructure } from '../src/maintenance/fts-structure.js';

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    sends: { type: 'string', default: '3000' },
    upkeep: { type: 'boolean', default: false },
  },
});
if (!values.db) {
  process.stderr.write('usage: npx tsx bench/send-stalls.ts --db FILE [--sends N] [--upkeep]\n');
  process.exit(2);
}
const sends = Number(values.sends);
const brain = await openBrain({ dbPath: values.db });
const topics = ['the garden', 'my flight to Lisbon', 'the tax return', 'a birthday gift'];
const thread = brain.messages.send({
  from: 'bench-owner',
  to: 'assistant',
  body: 'a new session',
}).thread_id;

const times: number[] = [];
let upkeepMs = 0;
for (let i = 0; i < sends; i++) {
  const owner = i % 2 === 0;
  const body = `Turn ${i >> 1}: ${owner ? 'a question' : 'an answer'} about ${topics[(i >> 1) % 4]}, ${Math.random().toString(36).slice(2)}.`;
  const started = process.hrtime.bigint();
  brain.messages.send({
    from: owner ? 'bench-owner' : 'assistant',
    to: owner ? 'assistant' : 'bench-owner',
    thread,
    body,
  });
  times.push(Number(process.hrtime.bigint() - started) / 1e6);
  if (values.upkeep && !owner) {
    const t0 = performance.now();
    brain.upkeep.maintain();
    upkeepMs += performance.now() - t0;
  }
}
const segments = readFtsStructure(connectionOf(brain), 'messages_fts').segments;
brain.close();

const sorted = [...times].sort((a, b) => a - b);
const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
console.log(
  `${sends} sends ${values.upkeep ? 'with' : 'without'} idle upkeep between pairs: ` +
    `p50 ${at(0.5).toFixed(2)} ms, p99 ${at(0.99).toFixed(2)} ms, p99.9 ${at(0.999).toFixed(2)} ms, ` +
    `max ${sorted.at(-1)!.toFixed(1)} ms; ${sorted.filter((t) => t > 30).length} over 30 ms; ` +
    `upkeep ${upkeepMs.toFixed(0)} ms in all; messages_fts ${segments} segments after`,
);
