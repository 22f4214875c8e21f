import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempBrain, type TempBrain } from '../helpers.js';

/*
 * One-shot read commands while another process holds the write lock (issue 12: `brain search`
 * waited 10 s and failed with SQLITE_BUSY). They answer at once; what they would write beside
 * the read (access counts, the agent's last-seen time) is tried once at exit without waiting.
 */

/** Process start included; a command that queued for the lock would take its 10 s timeout. */
const PROMPT_MS = 8_000;

let t: TempBrain;
let writer: BetterSqlite3.Database | undefined;
let memory: string;
beforeEach(async () => {
  t = await tempBrain();
  t.brain.messages.send({ from: 'helios', to: 'nova', body: 'the spread gate has no edge' });
  memory = t.brain.knowledge.remember({
    agent: 'nova',
    content: 'The spread gate predicts nothing',
  }).id;
});
afterEach(() => {
  writer?.close();
  writer = undefined;
  t.cleanup();
});

function holdWriteLock(): () => void {
  writer = new BetterSqlite3(t.path);
  writer.exec('BEGIN IMMEDIATE');
  return () => writer!.exec('COMMIT');
}

async function timedCli(args: string[]) {
  const started = performance.now();
  const r = await runCli([...args, '--db', t.path]);
  return { ...r, ms: performance.now() - started };
}

const accesses = () => t.brain.knowledge.getStm(memory)!.access_count;

describe('read commands under a writer', () => {
  it('search, memories and poll answer at once while another process holds the write lock', async () => {
    const release = holdWriteLock();
    try {
      const search = await timedCli(['search', 'spread gate', '--json', '--agent', 'nova']);
      expect(search.stderr).toBe('');
      expect(search.code).toBe(0);
      expect(JSON.parse(search.stdout).hits.map((h: { id: string }) => h.id)).toContain(memory);
      expect(search.ms).toBeLessThan(PROMPT_MS);

      const memories = await timedCli(['memories', '--mine', '--agent', 'nova', '--json']);
      expect(memories.code).toBe(0);
      expect(JSON.parse(memories.stdout).stm.map((s: { id: string }) => s.id)).toEqual([memory]);
      expect(memories.ms).toBeLessThan(PROMPT_MS);

      const poll = await timedCli(['poll', '--agent', 'nova', '--json']);
      expect(poll.code).toBe(0);
      expect(JSON.parse(poll.stdout)).toEqual({ agent: 'nova', unread: 1 });
      expect(poll.ms).toBeLessThan(PROMPT_MS);
    } finally {
      release();
    }
    expect(accesses()).toBe(0); // the lock was held at exit: those counts were dropped
  });

  it('a search writes its access counts as it exits when nobody holds the lock', async () => {
    expect((await timedCli(['search', 'spread gate'])).code).toBe(0);
    expect((await timedCli(['memories'])).code).toBe(0);
    expect(accesses()).toBe(2);
  });
});
