import { describe, expect, it } from 'vitest';
import { BrainError } from '../../../src/index.js';
import {
  combineMetrics,
  CONTENT_F1_THRESHOLD,
  contentTokens,
  readLocomoObservations,
  scoreExtraction,
  summaryF1,
  tokenF1,
  type LocomoObservation,
} from '../../../src/eval/extract-metrics.js';

const obs = (text: string, evidence: string[], speaker = 'Caroline'): LocomoObservation => ({
  text,
  speaker,
  session: 1,
  evidence,
});

describe('extraction metrics', () => {
  it('compares words lower-cased, without stop words, counted with their multiplicity', () => {
    expect(contentTokens("Caroline's the one who went to Rome, and she LOVED it!")).toEqual([
      'caroline',
      'one',
      'went',
      'rome',
      'loved',
    ]);
    expect(tokenF1('Caroline went to Rome.', 'caroline WENT to rome')).toBe(1);
    // 2 of 4 candidate words, 2 of 2 reference words: P 0.5, R 1.
    expect(tokenF1('Caroline visited Rome yesterday evening', 'Caroline in Rome')).toBeCloseTo(
      (2 * 0.4 * 1) / 1.4,
      10,
    );
    expect(tokenF1('the a of', 'Caroline')).toBe(0);
    expect(tokenF1('', '')).toBe(0);
    // A word said twice in the candidate counts once against one in the reference.
    expect(tokenF1('Rome Rome', 'Rome')).toBeCloseTo((2 * 0.5 * 1) / 1.5, 10);
    expect(summaryF1('Caroline and Melanie talked about painting.', 'Melanie paints.')).toBeCloseTo(
      tokenF1('Caroline and Melanie talked about painting.', 'Melanie paints.'),
      10,
    );
  });

  it('counts an observation cited and matched, cited and not matched, and not cited', () => {
    const observations = [
      obs('Caroline attended an LGBTQ support group.', ['D1:3']),
      obs('Caroline plans to study counseling.', ['D1:9']),
      obs('Melanie painted a lake sunrise.', ['D1:14'], 'Melanie'),
      obs('Melanie went swimming with her kids.', ['D1:16', 'D1:18'], 'Melanie'),
    ];
    const entries = [
      // Matches the first observation through its only evidence turn.
      { content: 'Caroline went to an LGBTQ support group.', sources: ['D1:3'] },
      // Cites the second observation's turn but says something else.
      { content: 'Caroline likes coffee.', sources: ['D1:9'] },
      // Matches the fourth through the second of its evidence turns.
      { content: 'Melanie is going swimming with the kids.', sources: ['D1:1', 'D1:18'] },
      // Cites no evidence turn at all.
      { content: 'Melanie says hello.', sources: ['D1:2'] },
      { content: 'Melanie painted a lake sunrise.', sources: ['D1:20'] },
    ];
    const m = scoreExtraction(entries, observations);
    expect(m).toEqual({
      provenance_recall: 3 / 4,
      content_recall: 2 / 3,
      entries_per_observation: 5 / 4,
      evidence_share: 3 / 5,
      observations: 4,
      entries: 5,
      cited: 3,
      matched: 2,
      evidence_entries: 3,
    });
  });

  it('holds a match to the stated threshold', () => {
    const o = [obs('Melanie painted a lake sunrise last year.', ['D1:14'])];
    const e = [{ content: 'Melanie painted a sunrise.', sources: ['D1:14'] }];
    const f1 = tokenF1(e[0]!.content, o[0]!.text);
    expect(f1).toBeGreaterThan(CONTENT_F1_THRESHOLD);
    expect(scoreExtraction(e, o).matched).toBe(1);
    expect(scoreExtraction(e, o, f1 + 0.01).matched).toBe(0);
  });

  it('gives zeros, not NaN, when there is nothing to score', () => {
    expect(scoreExtraction([], [])).toMatchObject({
      provenance_recall: 0,
      content_recall: 0,
      entries_per_observation: 0,
      evidence_share: 0,
    });
    const none = scoreExtraction([], [obs('Caroline paints.', ['D1:1'])]);
    expect(none).toMatchObject({ provenance_recall: 0, content_recall: 0, observations: 1 });
  });

  it('adds counts across conversations before taking shares', () => {
    const a = scoreExtraction(
      [{ content: 'Caroline paints.', sources: ['D1:1'] }],
      [obs('Caroline paints.', ['D1:1'])],
    );
    const b = scoreExtraction(
      [{ content: 'Jon dances.', sources: ['D1:5'] }],
      [obs('Jon dances.', ['D1:1']), obs('Jon runs a studio.', ['D1:2'])],
    );
    const all = combineMetrics([a, b]);
    expect(all.provenance_recall).toBeCloseTo(1 / 3, 10);
    expect(all.evidence_share).toBe(1 / 2);
    expect(all.entries_per_observation).toBeCloseTo(2 / 3, 10);
  });

  it('reads observations, their evidence and the session summaries of a LoCoMo file', () => {
    const doc = [
      {
        sample_id: 'c-1',
        qa: [],
        conversation: {
          speaker_a: 'Ann',
          speaker_b: 'Ben',
          session_1_date_time: '1:56 pm on 8 May, 2023',
          session_1: [
            { speaker: 'Ann', dia_id: 'D1:1', text: 'I went to Rome.' },
            { speaker: 'Ben', dia_id: 'D1:2', text: 'Nice!' },
          ],
          session_2_date_time: '2:00 pm on 9 May, 2023',
          session_2: [{ speaker: 'Ben', dia_id: 'D2:1', text: 'I run.' }],
        },
        observation: {
          session_2_observation: { Ben: [['Ben runs.', 'D2:1']] },
          session_1_observation: {
            Ann: [
              ['Ann went to Rome.', 'D1:1'],
              ['Ann told Ben twice.', ['D1:1', 'D1:2']],
              ['Ann wrote it oddly.', 'D1:1; D2:1'],
            ],
          },
        },
        session_summary: { session_2_summary: 'Ben runs.', session_1_summary: 'Ann was in Rome.' },
      },
      {
        qa: [],
        conversation: {
          speaker_a: 'Cy',
          speaker_b: 'Di',
          session_1_date_time: '1:56 pm on 8 May, 2023',
          session_1: [{ speaker: 'Cy', dia_id: 'D1:1', text: 'Hi' }],
        },
      },
    ];
    const [first, second] = readLocomoObservations(doc);
    expect(first!.id).toBe('c-1');
    expect(first!.speakers).toEqual(['Ann', 'Ben']);
    expect(first!.sessions.map((s) => s.turns.map((t) => t.dia_id))).toEqual([
      ['D1:1', 'D1:2'],
      ['D2:1'],
    ]);
    expect(first!.observations).toEqual([
      { text: 'Ann went to Rome.', speaker: 'Ann', session: 1, evidence: ['D1:1'] },
      { text: 'Ann told Ben twice.', speaker: 'Ann', session: 1, evidence: ['D1:1', 'D1:2'] },
      { text: 'Ann wrote it oddly.', speaker: 'Ann', session: 1, evidence: ['D1:1', 'D2:1'] },
      { text: 'Ben runs.', speaker: 'Ben', session: 2, evidence: ['D2:1'] },
    ]);
    expect(first!.summaries).toEqual([
      { session: 1, text: 'Ann was in Rome.' },
      { session: 2, text: 'Ben runs.' },
    ]);
    expect(second!.observations).toEqual([]);
    expect(second!.summaries).toEqual([]);
    const bad = structuredClone(doc);
    (bad[0] as Record<string, unknown>).observation = { session_1_observation: { Ann: [[1]] } };
    expect(() => readLocomoObservations(bad)).toThrow(BrainError);
  });
});
