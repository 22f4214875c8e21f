/**
 * What the WAL keeper (src/db/wal.ts) costs a send: replies through the library, each its own
 * transaction, on a copy of a built brain, with the keeper (a TRUNCATE checkpoint past 16 MiB)
 * and without it (SQLite's own passive checkpoint every 1,000 pages). Prints p50 and p99.
 *
 *   node dist/bin/main.js bench --messages 100000 --dir /tmp/b --keep
 *   npx tsx bench/send-keeper.ts /tmp/b/bench.db [sends=20000]
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openBrain } from '../src/index.js';

const [source, sendsArg] = process.argv.slice(2);
if (!source) {
  console.error('usage: npx tsx bench/send-keeper.ts BRAIN.db [sends]');
  process.exit(2);
}
const sends = Number(sendsArg ?? 20_000);

async function run(keeper: boolean): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'brain-send-keeper-'));
  const path = join(dir, 'brain.db');
  copyFileSync(source!, path);
  const brain = await openBrain({
    dbPath: path,
    ...(keeper ? {} : { walLimitBytes: Number.POSITIVE_INFINITY }),
  });
  try {
    const body = (i: number) => `reply ${i}: the weather is fine and the pottery class went well`;
    const thread = brain.messages.send({ from: 'nova', to: 'atlas', body: body(-1) }).thread_id;
    for (let i = 0; i < 2000; i++)
      brain.messages.send({ from: 'nova', to: 'atlas', body: body(i), thread });
    const times: number[] = [];
    for (let i = 0; i < sends; i++) {
      const start = performance.now();
      brain.messages.send({ from: 'atlas', to: 'nova', body: body(i), thread });
      times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    const at = (p: number) => times[Math.floor((times.length - 1) * p)]!.toFixed(3);
    return `p50 ${at(0.5)} ms, p99 ${at(0.99)} ms`;
  } finally {
    brain.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

for (let round = 0; round < 3; round++) {
  console.log(`with the keeper:    ${await run(true)}`);
  console.log(`without the keeper: ${await run(false)}`);
}
