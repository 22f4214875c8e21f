import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { openBrain, type DoctorReport } from '../src/index.js';
import { reported, spawnWorker, type Worker } from './workers.js';

export type Via = 'library' | 'cli' | 'mcp';

export interface StressOptions {
  /** A folder for the database (and the readers' stop file). */
  dir: string;
  writers: number;
  readers: number;
  perWriter: number;
  via: Via;
  /** Every k-th message of a writer is a broadcast (0: none). */
  broadcastEvery?: number;
  bodyBytes?: number;
  /** Readers pause this long when their inbox is empty (default 2 ms; CLI readers 200 ms). */
  idleMs?: number;
  /** Progress for people, e.g. on stderr. */
  onProgress?: (line: string) => void;
}

export interface StressReport {
  dbPath: string;
  sent: number;
  reads: number;
  elapsedMs: number;
  maxWalBytes: number;
  /** Empty when every guarantee held. */
  problems: string[];
  doctor: DoctorReport;
}

/**
 * Writers send, readers poll and read, all at once on one file; then check that every message
 * is there, every recipient read each of its messages exactly once, no call failed (no
 * SQLITE_BUSY reached a caller), and the doctor finds nothing wrong.
 */
export async function runStress(options: StressOptions): Promise<StressReport> {
  const dbPath = join(options.dir, 'stress.db');
  const stopFile = join(options.dir, 'stop');
  const writerNames = Array.from({ length: options.writers }, (_, i) => `writer-${i}`);
  const readerNames = Array.from({ length: options.readers }, (_, i) => `reader-${i}`);

  // Everyone is registered and two threads exist before the run, so broadcasts reach every
  // reader and writers contend on shared thread counters.
  const setup = await openBrain({ dbPath });
  for (const name of [...writerNames, ...readerNames]) setup.touchAgent(name);
  const threads = [0, 1].map(
    (i) =>
      setup.messages.send({ from: 'setup', to: 'setup', subject: `shared ${i}`, body: 'start' })
        .thread_id,
  );
  setup.close();

  const started = performance.now();
  let maxWalBytes = 0;
  const sampler = setInterval(() => {
    const size = statSync(`${dbPath}-wal`, { throwIfNoEntry: false })?.size ?? 0;
    maxWalBytes = Math.max(maxWalBytes, size);
  }, 25);
  const common = ['--db', dbPath, '--via', options.via];
  const readers = readerNames.map((name) =>
    spawnWorker([
      'reader',
      ...common,
      '--name',
      name,
      '--stop',
      stopFile,
      '--idle-ms',
      String(options.idleMs ?? (options.via === 'cli' ? 200 : 2)),
    ]),
  );
  const writers = writerNames.map((name) =>
    spawnWorker([
      'writer',
      ...common,
      '--name',
      name,
      '--count',
      String(options.perWriter),
      '--to',
      readerNames.join(','),
      '--threads',
      threads.join(','),
      '--broadcast-every',
      String(options.broadcastEvery ?? 10),
      '--body-bytes',
      String(options.bodyBytes ?? 200),
    ]),
  );
  const progress = options.onProgress
    ? setInterval(() => {
        const sent = writers.reduce((n, w) => n + reported(w, 'sent').length, 0);
        options.onProgress!(`${sent}/${options.writers * options.perWriter} sent`);
      }, 2000)
    : undefined;
  const writerExits = await Promise.all(writers.map((w) => w.exited));
  writeFileSync(stopFile, '');
  const readerExits = await Promise.all(readers.map((r) => r.exited));
  const elapsedMs = Math.round(performance.now() - started);
  clearInterval(sampler);
  if (progress) clearInterval(progress);

  const problems: string[] = [];
  const failed = (kind: string, ws: Worker[], exits: Array<number | string>) =>
    ws.forEach((w, i) => {
      if (exits[i] !== 0) problems.push(`${kind} ${i} exited ${exits[i]}: ${w.stderr().trim()}`);
    });
  failed('writer', writers, writerExits);
  failed('reader', readers, readerExits);

  const sent = writers.flatMap((w) => reported(w, 'sent'));
  if (new Set(sent).size !== sent.length) problems.push('a send returned an id twice');
  if (sent.length !== options.writers * options.perWriter)
    problems.push(`${sent.length} sends returned, expected ${options.writers * options.perWriter}`);

  const brain = await openBrain({ dbPath });
  // What the rows say, read on a connection of our own (the library has no such queries).
  const raw = new BetterSqlite3(dbPath, { readonly: true });
  try {
    const missing = sent.filter((id) => !brain.messages.getMessage(id));
    if (missing.length) problems.push(`${missing.length} sent messages are missing`);
    const stored = raw
      .prepare(
        `SELECT count(*) FROM messages m JOIN agents a ON a.id = m.from_agent WHERE a.name LIKE 'writer-%'`,
      )
      .pluck()
      .get() as number;
    if (stored !== sent.length) problems.push(`${stored} messages stored, ${sent.length} sent`);

    const deliveredTo = raw.prepare(
      `SELECT printf('syn_%012x', m.uid) AS uid, d.read_at FROM deliveries d JOIN messages m ON m.id = d.message_id
       JOIN agents a ON a.id = d.agent_id WHERE a.name = ?`,
    );
    readers.forEach((reader, i) => {
      const name = readerNames[i]!;
      const read = reported(reader, 'read');
      const once = new Set(read);
      if (once.size !== read.length)
        problems.push(`${name} read ${read.length - once.size} message(s) more than once`);
      const rows = deliveredTo.all(name) as Array<{ uid: string; read_at: string | null }>;
      const unread = rows.filter((r) => r.read_at === null).length;
      if (unread) problems.push(`${name} has ${unread} message(s) still unread`);
      const notSeen = rows.filter((r) => !once.has(r.uid)).length;
      if (notSeen) problems.push(`${name} never got ${notSeen} of its ${rows.length} message(s)`);
      const delivered = new Set(rows.map((r) => r.uid));
      const extra = [...once].filter((id) => !delivered.has(id)).length;
      if (extra) problems.push(`${name} read ${extra} message(s) not delivered to it`);
    });
    const doctor = await brain.upkeep.doctor();
    for (const c of doctor.checks) for (const p of c.problems) problems.push(`${c.name}: ${p}`);
    return {
      dbPath,
      sent: sent.length,
      reads: readers.reduce((n, r) => n + reported(r, 'read').length, 0),
      elapsedMs,
      maxWalBytes,
      problems,
      doctor,
    };
  } finally {
    raw.close();
    brain.close();
  }
}
