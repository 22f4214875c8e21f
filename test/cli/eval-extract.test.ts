import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('brain-eval-extract-')));
afterEach(() => cleanup());

/** A LoCoMo-format conversation with the annotations the extraction metrics read. */
const conversation = [
  {
    sample_id: 'conv-t',
    conversation: {
      speaker_a: 'Ann',
      speaker_b: 'Ben',
      session_1_date_time: '1:56 pm on 8 May, 2023',
      session_1: [
        { speaker: 'Ann', dia_id: 'D1:1', text: 'Hi Ben! How was your week?' },
        { speaker: 'Ben', dia_id: 'D1:2', text: 'Great! I started a new job at the bakery.' },
        { speaker: 'Ann', dia_id: 'D1:3', text: 'I love baking. My sister Eva is a chef.' },
        { speaker: 'Ben', dia_id: 'D1:4', text: 'Nice. I will bring you bread on Friday.' },
      ],
    },
    observation: {
      session_1_observation: {
        Ann: [
          ['Ann loves baking.', 'D1:3'],
          ["Ann's sister Eva is a chef.", 'D1:3'],
        ],
        Ben: [
          ['Ben started a new job at a bakery.', 'D1:2'],
          ['Ben will bring Ann bread on Friday.', 'D1:4'],
        ],
      },
    },
    session_summary: { session_1_summary: 'Ben started at a bakery; Ann loves baking.' },
    qa: [{ question: 'Where does Ben work?', answer: 'a bakery', evidence: ['D1:2'], category: 1 }],
  },
];

describe('brain eval extract', () => {
  it('scores what the offline extractor learns against the annotated observations', async () => {
    const file = join(dir, 'conv.json');
    writeFileSync(file, JSON.stringify(conversation));
    const run = await runCli(['eval', 'extract', file, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report).toMatchObject({
      extractor: 'offline@1',
      conversations: 1,
      observations: 4,
      threshold: 0.3,
      summaries: 1,
      questions: 1,
    });
    // Every observation here is said outright by one turn: the extractor cites each.
    expect(report.provenance_recall).toBe(1);
    expect(report.content_recall).toBeGreaterThanOrEqual(0.75);
    expect(report.evidence_share).toBeGreaterThan(0.5);
    for (const key of [
      'entries_per_observation',
      'recall_without_knowledge',
      'recall_with_knowledge',
    ])
      expect(typeof report[key]).toBe('number');

    const text = await runCli(['eval', 'extract', file]);
    expect(text.stdout).toMatch(/provenance recall\s+1\.000/);
  });

  it('refuses a bad threshold or file in words, with exit codes 2 and 1', async () => {
    const file = join(dir, 'conv.json');
    writeFileSync(file, JSON.stringify(conversation));
    const threshold = await runCli(['eval', 'extract', file, '--threshold', '2']);
    expect(threshold.code).toBe(2);
    expect(threshold.stderr).toMatch(/--threshold: must be a number above 0, at most 1/);
    const missing = await runCli(['eval', 'extract', join(dir, 'nope.json')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/cannot read/);
    writeFileSync(file, JSON.stringify([{ qa: [] }]));
    const bad = await runCli(['eval', 'extract', file]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/INVALID_INPUT/);
    expect(bad.stderr).not.toMatch(/\n\s+at /);
  });
});
