import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess as runHere } from '../cli-in-process.js';
import { ROOT, runCli, tempDir } from '../helpers.js';
import { startFakeOllama, type FakeOllama } from '../fakes/ollama.js';

const FIXTURE = join(ROOT, 'test', 'fixtures', 'locomo-tiny.json');
let dir: { dir: string; cleanup: () => void };
let fake: FakeOllama;
beforeAll(async () => {
  dir = tempDir();
  fake = await startFakeOllama();
});
afterAll(async () => {
  dir.cleanup();
  await fake.close();
});

describe('brain embed, search --explain, eval locomo', () => {
  it('drains the queue with a progress bar on stderr and shows the status', async () => {
    const env = { BRAIN_DB: join(dir.dir, 'a.db'), BRAIN_EMBEDDER: 'offline' };
    await runHere(
      ['send', '--agent', 'helios', '--to', 'nova', '--body', 'the spread gate has no edge'],
      env,
    );
    await runHere(
      ['send', '--agent', 'nova', '--to', 'helios', '--body', 'agreed, drop the gate'],
      env,
    );
    const before = await runHere(['embed', '--status', '--json'], env);
    expect(JSON.parse(before.stdout)).toMatchObject({
      pending: 2,
      failed: 0,
      embedded: 0,
      model: null,
    });

    const run = await runHere(['embed', '--json'], env);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ embedded: 2, failed: 0, pending: 0 });
    expect(run.stderr).toMatch(/embedding \[#+\] 2\/2/);

    const status = await runHere(['embed', '--status'], env);
    expect(status.stdout).toMatch(/pending\s+0/);
    expect(status.stdout).toMatch(/embedded\s+2/);
    expect(status.stdout).toMatch(/model\s+brain-/);

    const search = await runHere(['search', 'spread gate', '--explain'], env);
    expect(search.code).toBe(0);
    expect(search.stderr).toMatch(/retrievers: fts \+ vector/);
    // Each list's part, and what the words' score is made of: BM25 by field, context, coverage.
    expect(search.stdout).toMatch(
      /score [\d.]+ = fts #1 \(words [\d.]+: bm25 [\d.]+( \[[a-z]+ \d+%(, [a-z]+ \d+%)*\])?( \+ context [\d.]+)? \+ coverage 4\) [\d.]+ \+ vector #\d \(cosine [\d.-]+\) [\d.]+/,
    );

    const json = JSON.parse((await runHere(['search', 'spread gate', '--json'], env)).stdout);
    expect(json.retrievers).toEqual(['fts', 'vector']);
    expect(json.hits[0].found_by.vector.rank).toBeGreaterThan(0);
  });

  it('says clearly when embeddings are off, and when Ollama fails (items stay queued)', async () => {
    const db = join(dir.dir, 'b.db');
    await runHere(['send', '--agent', 'helios', '--to', 'nova', '--body', 'hello'], {
      BRAIN_DB: db,
    });
    const off = await runHere(['embed'], { BRAIN_DB: db, BRAIN_EMBEDDER: 'none' });
    expect(off.code).toBe(2);
    expect(off.stderr).toMatch(/BRAIN_EMBEDDER: is none/);

    fake.mode = 'http500';
    const env = { BRAIN_DB: db, BRAIN_EMBEDDER: 'ollama', OLLAMA_HOST: fake.host };
    const failed = await runCli(['embed'], env);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(
      /UPSTREAM_FAILED: 1 item\(s\) could not be embedded and stay queued: Ollama at .* HTTP 500/,
    );
    expect(failed.stderr).not.toMatch(/\n\s+at /);
    const status = JSON.parse((await runHere(['embed', '--status', '--json'], env)).stdout);
    expect(status).toMatchObject({ pending: 0, failed: 1, embedded: 0 });
    expect(status.last_error).toMatch(/HTTP 500/);
    const search = await runHere(['search', 'hello', '--json'], env);
    expect(JSON.parse(search.stdout).hits).toHaveLength(1);
    fake.mode = 'ok';
  });

  it('measures recall on a LoCoMo-format file and prints one JSON document', async () => {
    const r = await runHere(['eval', 'locomo', FIXTURE, '--k', '1,5', '--json'], {
      BRAIN_EMBEDDER: 'offline',
    });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(Object.keys(report.recall)).toEqual(['1', '5']);
    expect(report.questions).toBe(6);
    expect(Object.keys(report.arms)).toEqual(['fts', 'vector', 'hybrid']);
    expect(Object.keys(report.by_category)).toEqual(['1', '2', '4']);
    expect(r.stderr).toMatch(/tiny-1: 8 turns, 5 questions/);

    const human = await runHere(['eval', 'locomo', FIXTURE], { BRAIN_EMBEDDER: 'none' });
    expect(human.stdout).toMatch(/6 questions in 2 conversation\(s\); embedder: none/);
    expect(human.stdout).toMatch(/overall\s+[\d.]+\s+[\d.]+/);
  });

  it('builds a haystack once, keeps it, and reports inside it beside alone', async () => {
    const file = join(dir.dir, 'hay.db');
    const args = ['eval', 'locomo', FIXTURE, '--haystack', '150', '--haystack-file', file];
    const r = await runHere([...args, '--words-only', '--json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(Object.keys(report.arms)).toEqual(['fts']);
    expect(report.haystack.n).toBeGreaterThanOrEqual(150);
    expect(Object.keys(report.haystack)).toEqual(['n', 'recall', 'by_category', 'arms', 'latency']);
    expect(Object.keys(report.haystack.latency.fts)).toEqual(['p50_ms', 'p99_ms']);
    // Kept in it as a long-running process keeps them: every word's row count, for each copy.
    const kept = new BetterSqlite3(file, { readonly: true });
    try {
      expect(kept.prepare(`SELECT count(*) FROM search_word_counts`).pluck().get()).toBeGreaterThan(
        0,
      );
    } finally {
      kept.close();
    }
    const again = await runHere([...args, '--words-only']);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/haystack: reusing/);
    expect(again.stdout).toMatch(/alone\s+│\s*inside [\d,]+ messages/);
    expect(again.stdout).toMatch(/search fts: p50 [\d.]+ ms, p99 [\d.]+ ms {2}│ {2}p50/);
  });

  it('rejects bad arguments with exit 2 and no stack trace', async () => {
    const lonely = await runHere(['eval', 'locomo', FIXTURE, '--haystack-corpus', FIXTURE]);
    expect(lonely.code).toBe(2);
    expect(lonely.stderr).toMatch(/brain: INVALID_INPUT: --haystack-corpus: needs --haystack N/);
    const small = await runHere(['eval', 'locomo', FIXTURE, '--haystack', '5']);
    expect(small.code).toBe(2);
    expect(small.stderr).toMatch(/--haystack: must be a whole number from 100/);
    const self = await runHere([
      'eval',
      'locomo',
      FIXTURE,
      '--haystack',
      '100',
      '--haystack-corpus',
      FIXTURE,
    ]);
    expect(self.code).toBe(2);
    expect(self.stderr).toMatch(/--haystack-corpus: every conversation of .* is under test/);
    const badK = await runHere(['eval', 'locomo', FIXTURE, '--k', 'five']);
    expect(badK.code).toBe(2);
    expect(badK.stderr).toMatch(/--k: must be whole numbers/);
    const missing = await runHere(['eval', 'locomo', join(dir.dir, 'nope.json')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/NOT_FOUND: FILE: cannot read/);
    const batch = await runHere(['embed', '--batch', '0'], {
      BRAIN_DB: join(dir.dir, 'c.db'),
      BRAIN_EMBEDDER: 'offline',
    });
    expect(batch.code).toBe(2);
    expect(batch.stderr).toMatch(/--batch: must be a whole number/);
  });
});
