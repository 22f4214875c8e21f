import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBrain } from '../../src/index.js';
import { runCliInProcess as runHere } from '../cli-in-process.js';
import { runCli, tempDir } from '../helpers.js';

let dir: string;
let cleanup: () => void;
let env: Record<string, string>;

beforeAll(async () => {
  ({ dir, cleanup } = tempDir('brain-usage-cli-'));
  const db = join(dir, 'brain.db');
  env = { BRAIN_DB: db };
  const brain = await openBrain({ dbPath: db });
  const call = {
    source: 'chat',
    model: 'claude-sonnet-4-5-20250929',
    endpoint: 'anthropic:claude-sonnet-4-5@0',
    input_tokens: 1_000_000,
    output_tokens: 100_000,
    cache_read_tokens: 2_000_000,
    cache_write_tokens: 0,
  };
  brain.assistant.recordUsage({ ...call, at: '2026-03-01T09:00:00Z' });
  brain.assistant.recordUsage({ ...call, source: 'compaction', at: '2026-03-02T09:00:00Z' });
  brain.assistant.recordUsage({
    ...call,
    model: 'llama3.1',
    endpoint: 'ollama:llama3.1@1',
    at: '2026-03-02T10:00:00Z',
  });
  brain.close();
});
afterAll(() => cleanup());

describe('brain usage', () => {
  it('prints tokens and estimated cost per model as one JSON document', async () => {
    const r = await runCli(['usage', '--json'], env);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as {
      by: string;
      rows: Array<{ key: string; calls: number; input_tokens: number; cost_usd: number | null }>;
      total: { calls: number; cost_usd: number | null };
    };
    expect(doc.by).toBe('model');
    expect(doc.rows.map((row) => [row.key, row.calls, row.input_tokens])).toEqual([
      ['claude-sonnet-4-5-20250929', 2, 2_000_000],
      ['llama3.1', 1, 1_000_000],
    ]);
    // Per call: $3 input + $1.50 output + $0.60 cache read = $5.10; Ollama is free.
    expect(doc.rows[0]!.cost_usd).toBeCloseTo(10.2, 10);
    expect(doc.rows[1]!.cost_usd).toBe(0);
    expect(doc.total).toMatchObject({ calls: 3 });
    expect(doc.total.cost_usd).toBeCloseTo(10.2, 10);
  });

  it('prints a table for people, by day or source, since a date', async () => {
    const byDay = await runHere(['usage', '--by', 'day', '--since', '2026-03-02'], env);
    expect(byDay.code).toBe(0);
    const lines = byDay.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^day\s+calls\s+input\s+output\s+cache read\s+cache write\s+cost$/);
    expect(lines[1]).toMatch(/^2026-03-02\s+2\s+2,000,000\s+200,000\s+4,000,000\s+0\s+\$5\.10$/);
    expect(lines[2]).toMatch(/^total\s+2\s+/);
    expect(lines).toHaveLength(3);

    const bySource = await runHere(['usage', '--by', 'source'], env);
    expect(bySource.stdout).toMatch(/^chat\s+2\s/m);
    expect(bySource.stdout).toMatch(/^compaction\s+1\s.*\$5\.10$/m);
  });

  it('says so when nothing was recorded in the period', async () => {
    const r = await runHere(['usage', '--since', '2027-01-01'], env);
    expect(r).toMatchObject({ code: 0, stdout: 'no model calls recorded since 2027-01-01\n' });
  });

  it('exits 2 naming the option on a bad grouping or date', async () => {
    const by = await runHere(['usage', '--by', 'week'], env);
    expect(by).toMatchObject({ code: 2, stdout: '' });
    expect(by.stderr).toBe('brain: INVALID_INPUT: by: must be one of model, day, source\n');
    const since = await runHere(['usage', '--since', 'yesterday'], env);
    expect(since.code).toBe(2);
    expect(since.stderr).toMatch(/^brain: INVALID_INPUT: since: must be an ISO 8601 date/);
  });
});
