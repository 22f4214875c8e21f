import { describe, expect, it } from 'vitest';
import { buildHistory, type HistoryInput } from '../../agent/history.js';
import { buildHistoryAfter, settledHistory } from '../../agent/settled-history.js';
import type { MessageRecord } from '../../src/index.js';
import { WHO, randomThread, type RandomMessage } from './random-thread.js';

let n = 0;
function record(m: RandomMessage): MessageRecord {
  n++;
  return {
    id: `syn_${String(n).padStart(12, '0')}`,
    thread_id: 'thr_x',
    from: m.from,
    to: null,
    reply_to: null,
    priority: 'normal',
    subject: 'chat/default',
    body: m.body,
    metadata: m.metadata,
    created_at: '2026-01-01T00:00:00.000Z',
  };
}

/** The owner's message, the assistant's reply, and the owner's next message. */
function aTurnAndAQuestion(): MessageRecord[] {
  return [
    { from: 'ann', body: 'one', metadata: {} },
    { from: 'assistant', body: 'first', metadata: {} },
    { from: 'ann', body: 'two', metadata: {} },
  ].map(record);
}

describe('buildHistoryAfter', () => {
  it('gives buildHistory’s output over all records at every turn of random threads, summaries and notes included', () => {
    let turns = 0;
    let settledTurns = 0;
    for (let seed = 1; seed <= 80; seed++) {
      const thread = randomThread(seed, { blankBodies: true });
      const records: MessageRecord[] = [];
      let covered = 0;
      let head: Pick<HistoryInput, 'summary' | 'note'> = {};
      let settled = settledHistory();
      for (let step = 0; step < 30; step++) {
        const added = 1 + Math.floor(thread.rand() * 3);
        for (let i = 0; i < added; i++) records.push(record(thread.next()));
        // Now and then a compaction: a new summary (sometimes with a note) covers older records.
        if (thread.rand() < 0.08 && records.length - covered > 1) {
          covered += 1 + Math.floor(thread.rand() * (records.length - covered - 1));
          head = {
            summary: thread.rand() < 0.8 ? `summary ${seed}/${step}` : '',
            ...(thread.rand() < 0.3 ? { note: 'older messages left out' } : {}),
          };
          settled = settledHistory();
        }
        const input: HistoryInput = { ...WHO, ...head, messages: records.slice(covered) };
        const expected = buildHistory(input);
        const got = buildHistoryAfter(settled, input);
        const where = `seed ${seed}, step ${step}`;
        expect(got, where).toEqual(expected);
        expect(JSON.stringify(got), where).toBe(JSON.stringify(expected));
        turns++;
        if (settled.count > 0) settledTurns++;
      }
    }
    // The incremental path is the one tested: most turns reuse a settled part.
    expect(settledTurns / turns).toBeGreaterThan(0.7);
  });

  it('settles only up to the newest turn and builds the records after it each time', () => {
    const records = aTurnAndAQuestion();
    const settled = settledHistory();
    buildHistoryAfter(settled, { ...WHO, messages: records });
    expect(settled.count).toBe(2);
    expect(settled.messages).toEqual(buildHistory({ ...WHO, messages: records.slice(0, 2) }));
  });

  it('does not settle a reply whose last round has no stored results, since the next message pairs with it', () => {
    const interrupted = {
      assistant: {
        rounds: [
          {
            content: [{ type: 'tool_use', id: 'tu_1', name: 'search_memory', input: {} }],
            results: [],
          },
        ],
      },
    };
    const records = [
      { from: 'ann', body: 'one', metadata: {} },
      { from: 'assistant', body: 'first', metadata: interrupted },
      { from: 'ann', body: 'two', metadata: {} },
    ].map(record);
    const settled = settledHistory();
    const got = buildHistoryAfter(settled, { ...WHO, messages: records });
    expect(settled.count).toBe(0);
    expect(got).toEqual(buildHistory({ ...WHO, messages: records }));
  });

  it('freezes the messages it keeps for later turns, and gives each caller an array of its own', () => {
    const records = aTurnAndAQuestion();
    const settled = settledHistory();
    const first = buildHistoryAfter(settled, { ...WHO, messages: records });
    expect(() => first[0]!.content.push({ type: 'text', text: 'x' })).toThrow(TypeError);
    expect(() => {
      (first[0]!.content[0] as { text: string }).text = 'changed';
    }).toThrow(TypeError);
    first.push({ role: 'assistant', content: [{ type: 'text', text: 'appended by the caller' }] });
    const again = buildHistoryAfter(settled, { ...WHO, messages: records });
    expect(again).toEqual(buildHistory({ ...WHO, messages: records }));
    expect(again[0]).toBe(first[0]);
  });
});
