import { spawn } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openBrain } from '../../src/index.js';
import { CLI, runCli, tempDir } from '../helpers.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('brain-extract-crash-')));
afterEach(() => cleanup());

/** Made-up words, one per message: no two entries say the same, so none merge. */
const word = (i: number) => `zo${(i * 7919) % 100_003}`;
const SAYINGS = [
  (i: number) => `We decided to use ${word(i)} for the queue.`,
  (i: number) => `I'll write the ${word(i)} notes by Friday.`,
  (i: number) => `My favourite editor is ${word(i)}.`,
  () => `ok, thanks`,
];
const MESSAGES = 1200;

/** What a brain learned, as comparable lines: each entry's words and its sources. */
async function learned(path: string): Promise<string[]> {
  const brain = await openBrain({ dbPath: path }, ['knowledge']);
  try {
    const lines: string[] = [];
    for (const i of brain.knowledge.insights({ include_superseded: true, limit: 1000 }))
      lines.push(`${i.content} <- ${i.sources.map((s) => s.message_id).join(',')}`);
    return lines.sort();
  } finally {
    brain.close();
  }
}

describe('brain extract killed with SIGKILL mid-pass', () => {
  it('resumes where it stopped and learns exactly what one uninterrupted pass learns', async () => {
    const path = join(dir, 'brain.db');
    const brain = await openBrain({ dbPath: path });
    brain.batch(() => {
      for (let i = 0; i < MESSAGES; i++)
        brain.messages.send({
          from: i % 2 ? 'ana' : 'bo',
          to: i % 2 ? 'bo' : 'ana',
          subject: `s${i % 150}`,
          body: SAYINGS[i % SAYINGS.length]!(i),
        });
    });
    brain.close();
    const clean = join(dir, 'clean.db');
    copyFileSync(path, clean);

    // Killed once a batch is stored and before the last one is.
    const child = spawn(process.execPath, [CLI, 'extract', '--db', path], {
      stdio: 'ignore',
      env: { ...process.env, BRAIN_EMBEDDER: 'none' },
    });
    const watch = new BetterSqlite3(path, { readonly: true });
    const cursor = () =>
      (watch.prepare(`SELECT max(last_id) AS n FROM extract_cursor`).get() as { n: number | null })
        .n ?? 0;
    let done = false;
    const exited = new Promise((resolve) => child.once('exit', resolve)).then(() => (done = true));
    let at = 0;
    while ((at = cursor()) === 0 && !done) await new Promise((resolve) => setImmediate(resolve));
    expect(done, 'brain extract ended before it stored a batch').toBe(false);
    child.kill('SIGKILL');
    await exited;
    watch.close();
    expect(at).toBeGreaterThan(0);
    expect(at).toBeLessThan(MESSAGES);

    const resumed = await runCli(['extract', '--db', path, '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout).read).toBeLessThan(MESSAGES);
    expect((await runCli(['extract', '--db', clean])).code).toBe(0);
    const [afterCrash, uninterrupted] = [await learned(path), await learned(clean)];
    expect(uninterrupted.length).toBeGreaterThan(800);
    expect(uninterrupted.length).toBeLessThan(1000);
    expect(afterCrash).toEqual(uninterrupted);
    const doctor = await runCli(['doctor', '--db', path]);
    expect(doctor.code, doctor.stdout).toBe(0);
  }, 60_000);
});
