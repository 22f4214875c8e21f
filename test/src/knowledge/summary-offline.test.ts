import { describe, expect, it } from 'vitest';
import {
  createOfflineSummarizer,
  summarizeOffline,
  SUMMARY_MAX_CHARS,
  SUMMARY_MIN_CHARS,
} from '../../../src/knowledge/extract/summary-offline.js';
import type { ExtractTurn } from '../../../src/knowledge/extract/types.js';

let n = 0;
function turn(sender: string, to: string, body: string, at: string, subject: string | null = null) {
  return {
    id: `syn_${++n}`,
    thread_id: 'thr_x',
    sender,
    recipients: [to],
    subject,
    body,
    created_at: at,
  } satisfies ExtractTurn;
}

/** Two agents choose a database, with small talk around the decision. */
const hub: ExtractTurn[] = [
  turn('ana', 'bo', 'Hi bo! How are you?', '2026-03-02T09:00:00Z', 'database for the hub'),
  turn('bo', 'ana', "Good, thanks! What's up?", '2026-03-02T09:01:00Z', 'database for the hub'),
  turn(
    'ana',
    'bo',
    'Should the hub use Postgres or SQLite? The hub runs on one machine with one writer.',
    '2026-03-02T09:02:00Z',
  ),
  turn(
    'bo',
    'ana',
    'We decided to use SQLite for the hub, since one file is simpler to back up. Haha, nice weather today!',
    '2026-03-02T09:03:00Z',
  ),
  turn(
    'ana',
    'bo',
    "Great. I'll write the migration for the hub by Friday.",
    '2026-03-04T16:00:00Z',
  ),
  turn('bo', 'ana', 'Cool, thanks!', '2026-03-04T16:01:00Z'),
];

describe('the offline summarizer', () => {
  it('says who talked, when, about what, and keeps the decision and the commitment in the third person', () => {
    const s = summarizeOffline(hub);
    expect(s).toMatch(
      /^ana and bo talked about "database for the hub" from 2 March 2026 to 4 March 2026 \(6 messages\)\./,
    );
    expect(s).toContain('decided to use SQLite for the hub');
    expect(s).toMatch(/ana will write the migration for the hub by Friday/);
    // Small talk and greetings carry nothing.
    expect(s).not.toMatch(/weather|How are you|thanks/i);
    expect(s).not.toMatch(/\bI(?:'ll)?\b/);
    expect(s.length).toBeLessThanOrEqual(SUMMARY_MIN_CHARS);
  });

  it('names one day and its time when the thread lasted one day, and one writer to many', () => {
    const s = summarizeOffline([
      {
        ...turn(
          'ops',
          'ana',
          'The deploy of the search service is done; it took 4 minutes.',
          '2026-05-08T13:56:00Z',
        ),
        recipients: ['ana', 'bo'],
      },
    ]);
    expect(s).toMatch(/^ops wrote to ana and bo on 8 May 2026 at 1:56 pm UTC \(1 message\)\./);
    expect(s).toContain('deploy of the search service');
  });

  it('keeps a long thread within its bound, without saying the same twice', () => {
    // Each turn names three things of its own: nothing in it repeats another turn.
    const long: ExtractTurn[] = [];
    for (let i = 0; i < 120; i++)
      long.push(
        turn(
          i % 2 ? 'bo' : 'ana',
          i % 2 ? 'ana' : 'bo',
          `I decided that service${i}a replaces engine${i}b on rack${i}c.`,
          new Date(Date.UTC(2026, 0, 1) + i * 3_600_000).toISOString(),
        ),
      );
    const s = summarizeOffline(long);
    expect(s.length).toBeGreaterThan(SUMMARY_MIN_CHARS);
    expect(s.length).toBeLessThanOrEqual(SUMMARY_MAX_CHARS);
    const sentences = s.split(/(?<=\.) /);
    expect(new Set(sentences).size).toBe(sentences.length);
    expect(summarizeOffline(long)).toBe(s); // deterministic
  });

  it('never throws on what it is handed, and says nothing of nothing', async () => {
    const summarizer = createOfflineSummarizer();
    expect(summarizer).toMatchObject({ name: 'summary', version: 1 });
    expect(await summarizer.summarize([])).toBe('');
    const odd = [
      { id: 1, sender: null, recipients: 'x', body: 42, created_at: 'not a time' },
      null,
      turn('ana', 'bo', '```\nconst x = 1;\n```', 'never'),
    ] as unknown as ExtractTurn[];
    const s = await summarizer.summarize(odd);
    expect(s).toMatch(/\(2 messages\)\.$/);
    await expect(summarizer.summarize(undefined as unknown as ExtractTurn[])).resolves.toBe('');
  });
});
