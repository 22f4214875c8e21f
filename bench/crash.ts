import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { openBrain } from '../src/index.js';
import { reported, spawnWorker } from './workers.js';

export interface CrashOptions {
  dir: string;
  kills: number;
  /** Each writer is killed at a random moment in [0, maxDelayMs) after it started. */
  maxDelayMs?: number;
  /**
   * Count the delay from the writer's first returned send instead of its start, so every kill
   * lands mid-stream however slowly processes start (a loaded machine).
   */
  afterFirstSend?: boolean;
  seed?: number;
  onProgress?: (line: string) => void;
}

export interface CrashReport {
  dbPath: string;
  kills: number;
  /** Sends and memories that returned before their writer was killed (all must survive). */
  returned: number;
  /** Kills that came before the writer's first send returned (while starting or opening). */
  earlyKills: number;
  problems: string[];
}

/** A small deterministic generator, so a failing run can be repeated with its seed. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Start a writer on one file and SIGKILL it at a random moment, `kills` times. After each kill:
 * every send and memory that returned before it (the writer printed its id) is in the
 * database, which opens and passes every doctor check.
 */
export async function runCrashes(options: CrashOptions): Promise<CrashReport> {
  const dbPath = join(options.dir, 'crash.db');
  const random = mulberry32(options.seed ?? 1);
  const maxDelay = options.maxDelayMs ?? 600;
  const returned = { sent: [] as string[], stm: [] as string[] };
  const problems: string[] = [];
  let earlyKills = 0;

  for (let round = 0; round < options.kills; round++) {
    const writer = spawnWorker(['crash-writer', '--db', dbPath, '--name', `writer-${round % 3}`]);
    const delay = Math.floor(random() * maxDelay);
    if (options.afterFirstSend) await writer.line('sent ');
    await new Promise((resolve) => setTimeout(resolve, delay));
    writer.child.kill('SIGKILL');
    const exit = await writer.exited;
    if (exit !== 'SIGKILL')
      problems.push(`round ${round}: writer ended by itself (${exit}): ${writer.stderr().trim()}`);
    const sent = reported(writer, 'sent');
    if (sent.length === 0) earlyKills += 1;
    returned.sent.push(...sent);
    returned.stm.push(...reported(writer, 'stm'));

    const brain = await openBrain({ dbPath });
    // The library answers for messages; STM rows are checked on a connection of our own.
    const raw = new BetterSqlite3(dbPath, { readonly: true });
    try {
      const hasStm = raw.prepare(`SELECT 1 FROM stm WHERE uid = ?`).pluck();
      const lostSends = returned.sent.filter((id) => !brain.messages.getMessage(id)).length;
      const lostStm = returned.stm.filter((id) => !hasStm.get(id)).length;
      if (lostSends) problems.push(`round ${round}: ${lostSends} returned sends are missing`);
      if (lostStm) problems.push(`round ${round}: ${lostStm} returned memories are missing`);
      const report = await brain.upkeep.doctor();
      for (const c of report.checks)
        for (const p of c.problems) problems.push(`round ${round}: ${c.name}: ${p}`);
    } finally {
      raw.close();
      brain.close();
    }
    options.onProgress?.(
      `kill ${round + 1}/${options.kills} after ${delay} ms: ${sent.length} sends returned`,
    );
  }
  return {
    dbPath,
    kills: options.kills,
    returned: returned.sent.length + returned.stm.length,
    earlyKills,
    problems,
  };
}
