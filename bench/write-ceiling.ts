/**
 * How many sends a second one brain file takes: one writer in this process (a send is one
 * transaction, as `brain serve` makes it), then W writer processes through the library at once,
 * all contending for SQLite's one write lock. Rates count only the window in which every writer
 * is running (start-up excluded).
 * Usage: npx tsx bench/write-ceiling.ts [--writers 1,2,4,8] [--seconds 5] [--body-bytes 200]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openBrain } from '../src/index.js';
import { reported, spawnWorker } from './workers.js';

const { values } = parseArgs({
  options: {
    writers: { type: 'string', default: '1,2,4,8' },
    seconds: { type: 'string', default: '5' },
    'body-bytes': { type: 'string', default: '200' },
  },
});
const seconds = Number(values.seconds);
const bodyBytes = Number(values['body-bytes']);
const RECIPIENTS = ['r-0', 'r-1', 'r-2', 'r-3'];

async function fresh(dir: string, writers: number) {
  const dbPath = join(dir, `w${writers}.db`);
  const setup = await openBrain({ dbPath });
  for (const name of RECIPIENTS) setup.touchAgent(name);
  for (let i = 0; i < writers; i++) setup.touchAgent(`writer-${i}`);
  const thread = setup.messages.send({ from: 'r-0', to: 'r-1', subject: 's', body: 'start' });
  return { dbPath, setup, thread: thread.thread_id };
}

async function inProcess(dir: string): Promise<number> {
  const { setup: brain, thread } = await fresh(dir, 1);
  try {
    const body = 'x'.repeat(bodyBytes);
    const end = performance.now() + seconds * 1000;
    const started = performance.now();
    let n = 0;
    while (performance.now() < end) {
      brain.messages.send({
        from: 'writer-0',
        to: RECIPIENTS[n % 4],
        body: `${n} ${body}`,
        thread,
      });
      n++;
    }
    return n / ((performance.now() - started) / 1000);
  } finally {
    brain.close();
  }
}

async function processes(dir: string, writers: number): Promise<number> {
  const { dbPath, setup, thread } = await fresh(dir, writers);
  setup.close();
  const workers = Array.from({ length: writers }, (_, i) =>
    spawnWorker([
      'writer',
      ...['--db', dbPath, '--via', 'library', '--name', `writer-${i}`],
      ...['--count', '100000000', '--to', RECIPIENTS.join(','), '--threads', thread],
      ...['--broadcast-every', '0', '--body-bytes', String(bodyBytes)],
    ]),
  );
  const count = () => workers.reduce((n, w) => n + reported(w, 'sent').length, 0);
  try {
    await Promise.all(workers.map((w) => w.line('sent')));
    const c0 = count();
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const rate = (count() - c0) / ((performance.now() - t0) / 1000);
    for (const w of workers)
      if (w.child.exitCode !== null) throw new Error(`a writer stopped: ${w.stderr().trim()}`);
    return rate;
  } finally {
    for (const w of workers) w.child.kill('SIGTERM');
    await Promise.all(workers.map((w) => w.exited));
  }
}

const dir = mkdtempSync(join(tmpdir(), 'brain-ceiling-'));
try {
  console.log(`sends/s into one brain file, ${seconds} s each, ${bodyBytes}-byte bodies`);
  console.log(`1 writer in process: ${(await inProcess(dir)).toFixed(0)} sends/s`);
  for (const w of values.writers.split(',').map(Number))
    console.log(`${w} writer process(es): ${(await processes(dir, w)).toFixed(0)} sends/s`);
  console.log(
    `load average after: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
