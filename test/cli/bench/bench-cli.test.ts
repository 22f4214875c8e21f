import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createChatText, GENERATED_SOURCE } from '../../../cli/bench/chat-text.js';
import { runCliInProcess } from '../../cli-in-process.js';
import { runCli, tempDir } from '../../helpers.js';

const tmp = tempDir('brain-bench-test-');
afterAll(() => tmp.cleanup());

/** A LoCoMo-format file of generated sentences: one conversation, one session. */
function writeCorpus(): string {
  const file = join(tmp.dir, 'corpus.json');
  const chat = createChatText(3);
  const sentences = Array.from({ length: 40 }, () => chat.sentence());
  const turns = sentences.map((text, i) => ({
    speaker: i % 2 ? 'Ada' : 'Bo',
    dia_id: `D1:${i + 1}`,
    text,
  }));
  const doc = [
    {
      conversation: {
        speaker_a: 'Ada',
        speaker_b: 'Bo',
        session_1: turns,
        session_1_date_time: '1:56 pm on 8 May, 2023',
      },
      qa: [{ question: 'What did Ada bake?', answer: 'cookies', evidence: [], category: 1 }],
    },
  ];
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

const OPS = [
  'poll',
  'poll_backlog',
  'thread_history',
  'thread_history_last',
  'search_fts_first',
  'search_fts',
  'find_provenance',
  'read_unread',
  'send',
  'send_full',
  'node_process',
  'poll_process',
  'search_process',
  'provenance_process',
  'thread_process',
  'send_process',
  'read_process',
];

describe('brain bench', () => {
  // The one real process: the command's wiring. One run of each command as a process and a
  // baseline of 1,000 messages prove the same as the defaults, in a fraction of the time.
  it('builds 2,000 messages of generated chat and prints one JSON document with every operation, the baseline and the goals', async () => {
    const r = await runCli([
      'bench',
      '--messages',
      '2000',
      '--json',
      '--time',
      '20',
      '--runs',
      '1',
      '--baseline-messages',
      '1,000',
    ]);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.messages).toBe(2000);
    expect(doc.db_bytes).toBeGreaterThan(0);
    expect(doc.bytes_per_message).toBeCloseTo(doc.db_bytes / 2000);
    expect(Object.keys(doc.ops).sort()).toEqual([...OPS].sort());
    for (const op of OPS) {
      const f = doc.ops[op];
      expect(f.p50_ms, op).toBeGreaterThan(0);
      expect(f.p99_ms, op).toBeGreaterThanOrEqual(f.p50_ms);
      expect(f.ops_per_s, op).toBeGreaterThan(0);
    }
    expect(doc.baseline.messages).toBe(1000);
    expect(doc.baseline.file_bytes).toBeGreaterThan(100_000);
    for (const op of ['send', 'poll']) {
      expect(doc.baseline.ops[op].p50_ms).toBeGreaterThan(0);
      expect(doc.baseline.ratios[op]).toBeCloseTo(doc.baseline.ops[op].p50_ms / doc.ops[op].p50_ms);
    }
    expect(Object.keys(doc.goals)).toEqual(
      expect.arrayContaining(['poll_p99_ms', 'send_p50_ms', 'bytes_per_message']),
    );
    for (const g of Object.values(doc.goals) as Array<{ met: unknown; goal: unknown }>) {
      expect(typeof g.met).toBe('boolean');
      expect(typeof g.goal).toBe('string');
    }
    expect(doc.build).toMatchObject({
      messages: 2000,
      stm: 200,
      atoms: 200,
      corpus: GENERATED_SOURCE,
    });
    expect(doc.goals.search_process_p50_ms).toMatchObject({
      goal: 'brain search as a process ≤ node + 80 ms',
      value: doc.ops.search_process.p50_ms - doc.ops.node_process.p50_ms,
    });
    expect(doc.search_queries).toHaveLength(50);
    expect(doc.vectors).toBeNull();
    // Progress and what is measured go to stderr; the temp folder is removed afterwards.
    expect(r.stderr).toMatch(/building: 2,000\/2,000 messages \(100%\)/);
    expect(r.stderr).toMatch(/measuring search_fts/);
    expect(r.stderr).toMatch(/measuring read_process \(1 runs of brain read\)/);
    expect(r.stderr).toMatch(/measuring node_process \(1 runs of node -e 0\)/);
    expect(r.stderr).toMatch(/measuring the baseline: one JSON file of 1000 messages/);
  }, 180_000);

  it('refuses bad options with exit 2 and a message naming the option', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--messages', 'many'], /--messages: must be a whole number from 100/],
      [['--messages', '5'], /--messages: must be a whole number from 100/],
      [['--messages', '2.5'], /--messages: must be a whole number/],
      [['--time', '0'], /--time: must be a whole number from 10/],
      [['--runs', '-1'], /--runs/],
      [['--corpus', ''], /--corpus: must not be empty/],
      [['--baseline-messages', '50'], /--baseline-messages: must be a whole number from 100/],
    ];
    for (const [args, message] of cases) {
      const r = await runCliInProcess(['bench', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(r.stdout).toBe('');
    }
  });

  it('names --corpus when the file is missing (exit 1) or not a LoCoMo file (exit 2)', async () => {
    const missing = await runCliInProcess([
      'bench',
      '--messages',
      '100',
      '--corpus',
      join(tmp.dir, 'nope.json'),
    ]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/NOT_FOUND: --corpus: cannot read/);
    const bad = join(tmp.dir, 'bad.json');
    writeFileSync(bad, '{"messages": []}');
    const wrong = await runCliInProcess(['bench', '--messages', '100', '--corpus', bad]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/INVALID_INPUT: --corpus: .* is not a LoCoMo file/);
  });

  it('will not build over an existing bench.db in --dir', async () => {
    const dir = join(tmp.dir, 'kept');
    writeCorpus();
    const { mkdirSync } = await import('node:fs');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'bench.db'), '');
    const r = await runCliInProcess(['bench', '--messages', '100', '--dir', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--dir: .* already holds bench\.db/);
  });
});
