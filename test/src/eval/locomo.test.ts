import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BrainError, createOfflineEmbedder, evalLocomo } from '../../../src/index.js';
import { parseLocomoDate, splitEvidence } from '../../../src/eval/locomo-format.js';
import { ROOT } from '../../helpers.js';

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
