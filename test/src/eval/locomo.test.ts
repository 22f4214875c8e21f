import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createOfflineEmbedder } from '../../../src/embed/offline.js';
import { BrainError, evalLocomo } from '../../../src/index.js';
import { parseLocomoDate, splitEvidence } from '../../../src/eval/locomo-format.js';
import { percentile } from '../../../src/eval/locomo.js';
import { openBrain } from '../../../src/index.js';
import { ROOT, tempDir } from '../../helpers.js';

const tiny = JSON.parse(
  readFileSync(join(ROOT, 'test', 'fixtures', 'locomo-tiny.json'), 'utf8'),
) as unknown;

describe('brain eval locomo', () => {
  it('reads LoCoMo dates and the malformed evidence lists of the real file', () => {
    expect(parseLocomoDate('1:56 pm on 8 May, 2023')).toBe('2023-05-08T13:56:00.000Z');
    expect(parseLocomoDate('12:05 am on 1 January, 2024')).toBe('2024-01-01T00:05:00.000Z');
    expect(parseLocomoDate('soon')).toBeUndefined();
    expect(splitEvidence(['D8:6; D9:17', 'D1:2', 'D1:2', 'junk'])).toEqual([
      'D8:6',
      'D9:17',
      'D1:2',
    ]);
  });

  it('asks every question of categories 1-4 that has evidence, in one brain per conversation', async () => {
    const progress: string[] = [];
    const report = await evalLocomo(tiny, { ks: [1, 5], onProgress: (l) => progress.push(l) });
    expect(report.questions).toBe(6); // the category-5 question and the one without evidence are left out
    expect(report.skipped_no_evidence).toBe(1);
    expect(report.conversations).toBe(2);
    expect(report.embedder).toBeNull();
    expect(Object.keys(report.arms)).toEqual(['fts']);
    // Every evidence turn of this file is found by words within 5 hits.
    expect(report.recall).toEqual({ '1': expect.any(Number), '5': 1 });
    expect(report.by_category).toEqual({
      '1': { '1': 0.5, '5': 1 },
      '2': expect.any(Object),
      '4': expect.any(Object),
    });
    expect(progress).toEqual(['tiny-1: 8 turns, 5 questions', 'tiny-2: 2 turns, 2 questions']);
  });

  it('measures each conversation again inside a copy of the haystack, side by side', async () => {
    const dir = tempDir();
    try {
      const path = join(dir.dir, 'haystack.db');
      const stack = await openBrain({ dbPath: path });
      // Decoys: short messages full of the questions' words, said by the people the questions
      // name (so their conversations are no smaller a crowd), which outrank the evidence turns.
      stack.batch(() => {
        for (let i = 0; i < 60; i++) {
          const words = ['pottery classes Ben start', 'Ben dog name', 'Ada marathon run long'];
          const [from, to] = i % 2 ? ['Ben', 'Ada'] : ['Ada', 'Ben'];
          stack.messages.send({ from, to, body: `${words[i % 3]} ${i}` });
        }
      });
      stack.close();
      const report = await evalLocomo(tiny, { ks: [1, 5], haystack: { path } });
      expect(report.haystack).toEqual({
        n: 60,
        recall: report.haystack!.arms.fts!.recall,
        by_category: expect.objectContaining({ '1': expect.any(Object) }),
        arms: { fts: { recall: expect.any(Object), by_category: expect.any(Object) } },
        latency: { fts: { p50_ms: expect.any(Number), p99_ms: expect.any(Number) } },
      });
      expect(report.latency.fts!.p99_ms).toBeGreaterThanOrEqual(report.latency.fts!.p50_ms);
      // Alone every evidence turn is within 5; among the decoys some are pushed out.
      expect(report.recall['5']).toBe(1);
      expect(report.haystack!.recall['5']).toBeLessThan(1);
      // The haystack itself is only copied: the conversations were never written into it.
      const after = await openBrain({ dbPath: path });
      expect(after.search.search({ query: 'Rex', types: ['message'] }).hits).toEqual([]);
      after.close();
    } finally {
      dir.cleanup();
    }
  });

  it('takes nearest-rank percentiles of latencies', () => {
    const ms = Array.from({ length: 100 }, (_, i) => 100 - i); // 1..100, unsorted
    expect(percentile(ms, 50)).toBe(50);
    expect(percentile(ms, 99)).toBe(99);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBe(0);
  });

  it('reports each arm with an embedder: words, vectors and both', async () => {
    const report = await evalLocomo(tiny, { ks: [5, 10], embedder: await createOfflineEmbedder() });
    expect(Object.keys(report.arms)).toEqual(['fts', 'vector', 'hybrid']);
    expect(report.recall).toEqual(report.arms.hybrid!.recall);
    expect(report.arms.hybrid!.recall['10']).toBe(1);
    expect(report.embedder).toMatch(/^brain-/);
  });

  it('rejects a file that is not in LoCoMo format, naming the field', async () => {
    const err = await evalLocomo([{ conversation: { speaker_a: 'a' }, qa: [] }]).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(BrainError);
    expect((err as Error).message).toMatch(/LoCoMo file: 0\.conversation\.speaker_b: is required/);
    const noDate = await evalLocomo([
      { conversation: { speaker_a: 'a', speaker_b: 'b', session_1: [] }, qa: [] },
    ]).catch((e: unknown) => e);
    expect((noDate as Error).message).toMatch(/session_1_date_time: must be a date/);
  });
});
