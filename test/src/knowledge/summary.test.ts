import { afterEach, describe, expect, it, vi } from 'vitest';
import { BrainError, SUMMARY_EVERY, type Brain, type Summarizer } from '../../../src/index.js';
import { createOfflineSummarizer } from '../../../src/knowledge/extract/summary-offline.js';
import { createOfflineExtractor } from '../../../src/knowledge/extract/offline.js';
import { tempBrain, type TempBrain } from '../../helpers.js';

let t: TempBrain;
afterEach(() => t?.cleanup());

/** A summarizer that says how many turns it read, first and last body: what it was handed. */
function countingSummarizer(): Summarizer & { calls: number } {
  const s = {
    name: 'summary',
    version: 1,
    calls: 0,
    summarize(turns: { body: string }[]) {
      s.calls++;
      return Promise.resolve(`${turns.length} turns: ${turns[0]!.body} … ${turns.at(-1)!.body}`);
    },
  };
  return s;
}

async function conversation() {
  t = await tempBrain();
  const { brain } = t;
  const ask = brain.messages.send({
    from: 'ana',
    to: 'bo',
    subject: 'database',
    body: 'Postgres or SQLite for the hub?',
  });
  brain.messages.send({
    from: 'bo',
    to: 'ana',
    thread: ask.thread_id,
    body: 'We decided to use SQLite for the hub.',
  });
  const last = brain.messages.send({
    from: 'ana',
    to: 'bo',
    thread: ask.thread_id,
    body: "I'll write the migration by Friday.",
  });
  return { brain, thread: ask.thread_id, first: ask, last };
}

function summaries(brain: Brain, thread: string) {
  return brain.knowledge
    .insights({ thread_id: thread, category: 'summary', include_superseded: true })
    .reverse();
}

describe('thread summaries', () => {
  it('closing a thread leads to a summary after a pass, citing its first and last message', async () => {
    const { brain, thread, first, last } = await conversation();
    const summarizer = createOfflineSummarizer();
    expect(await brain.knowledge.summarizeThreads(summarizer)).toMatchObject({ summarized: 0 });
    expect(brain.knowledge.threadSummary(thread)).toBeUndefined();

    brain.messages.setThreadStatus(thread, 'closed');
    expect(await brain.knowledge.summarizeThreads(summarizer)).toMatchObject({
      summarizer: 'summary@1',
      summarized: 1,
      errors: [],
    });
    const summary = brain.knowledge.threadSummary(thread)!;
    expect(summary).toMatchObject({
      thread_id: thread,
      extractor: 'summary@1',
      first_message_id: first.id,
      last_message_id: last.id,
      messages: 3,
    });
    expect(summary.content).toMatch(/^ana and bo talked about "database"/);
    expect(summary.content).toContain('decided to use SQLite');
    // Stored as knowledge: category summary, both messages as sources, found from each.
    const [entry, ...rest] = summaries(brain, thread);
    expect(rest).toEqual([]);
    expect(entry).toMatchObject({ id: summary.id, categories: ['summary'], superseded_by: null });
    expect(entry!.sources.map((s) => s.message_id).sort()).toEqual([first.id, last.id].sort());
    expect(brain.knowledge.provenance({ id: last.id }).derived.stm.map((s) => s.id)).toContain(
      summary.id,
    );
    // Summarized up to its last message: the next pass has nothing to do.
    expect(await brain.knowledge.summarizeThreads(summarizer)).toMatchObject({ summarized: 0 });
  });

  it('an archived thread is summarized too, and one whose summary is current is not again', async () => {
    const { brain, thread } = await conversation();
    const counting = countingSummarizer();
    await brain.knowledge.summarize(thread, counting);
    brain.messages.setThreadStatus(thread, 'archived');
    expect(await brain.knowledge.summarizeThreads(counting)).toMatchObject({ summarized: 0 });
    expect(counting.calls).toBe(1);
  });

  it('a newer summary supersedes the older, and the thread shows the newer', async () => {
    const { brain, thread, last } = await conversation();
    const counting = countingSummarizer();
    const older = (await brain.knowledge.summarize(thread, counting))!;
    expect(older.content).toMatch(/^3 turns: /);
    const later = brain.messages.send({ from: 'bo', to: 'ana', thread, body: 'Migration merged.' });
    const newer = (await brain.knowledge.summarize(thread, counting))!;
    expect(newer).toMatchObject({ last_message_id: later.id, messages: 4 });
    expect(newer.content).toMatch(/^4 turns: .* Migration merged\.$/);
    expect(brain.knowledge.threadSummary(thread)!.id).toBe(newer.id);
    const [a, b] = summaries(brain, thread);
    expect(a).toMatchObject({ id: older.id, superseded_by: newer.id });
    expect(b).toMatchObject({ id: newer.id, superseded_by: null });
    expect(older.last_message_id).toBe(last.id);
    // The same words over the same messages store nothing new.
    expect((await brain.knowledge.summarize(thread, counting))!.id).toBe(newer.id);
    expect(summaries(brain, thread)).toHaveLength(2);
  });

  it(`a thread grown by ${SUMMARY_EVERY} messages gets a summary, and again ${SUMMARY_EVERY} later`, async () => {
    const { brain, thread } = await conversation();
    const counting = countingSummarizer();
    for (let i = 3; i < SUMMARY_EVERY - 1; i++)
      brain.messages.send({ from: 'ana', to: 'bo', thread, body: `note ${i}` });
    expect(await brain.knowledge.summarizeThreads(counting)).toMatchObject({ summarized: 0 });
    brain.messages.send({ from: 'ana', to: 'bo', thread, body: `note ${SUMMARY_EVERY - 1}` });
    expect(await brain.knowledge.summarizeThreads(counting)).toMatchObject({ summarized: 1 });
    expect(brain.knowledge.threadSummary(thread)!.messages).toBe(SUMMARY_EVERY);

    for (let i = 0; i < SUMMARY_EVERY - 1; i++)
      brain.messages.send({ from: 'bo', to: 'ana', thread, body: `more ${i}` });
    expect(await brain.knowledge.summarizeThreads(counting)).toMatchObject({ summarized: 0 });
    brain.messages.send({ from: 'bo', to: 'ana', thread, body: 'the last' });
    expect(await brain.knowledge.summarizeThreads(counting)).toMatchObject({ summarized: 1 });
    expect(brain.knowledge.threadSummary(thread)!.messages).toBe(2 * SUMMARY_EVERY);
    expect(summaries(brain, thread).filter((s) => s.superseded_by === null)).toHaveLength(1);
  });

  it('a thread whose last message is edited is summarized again once extraction reads it again', async () => {
    const { brain, thread, last } = await conversation();
    brain.messages.setThreadStatus(thread, 'closed');
    const extractor = createOfflineExtractor();
    await brain.knowledge.extract(extractor);
    await brain.knowledge.summarizeThreads(createOfflineSummarizer());
    const before = brain.knowledge.threadSummary(thread)!;
    expect(before.content).toContain('by Friday');
    // Messages are edited by importers and repairs, not by a command: as one of them does.
    const { connectionOf } = await import('../../../src/brain.js');
    connectionOf(brain)
      .prepare(`UPDATE messages SET body = ? WHERE id = (SELECT max(id) FROM messages)`)
      .run("I'll write the migration by Monday.");
    await brain.knowledge.extract(extractor);
    expect(await brain.knowledge.summarizeThreads(createOfflineSummarizer())).toMatchObject({
      summarized: 1,
    });
    const after = brain.knowledge.threadSummary(thread)!;
    expect(after).toMatchObject({ last_message_id: last.id, messages: 3 });
    expect(after.id).not.toBe(before.id);
    expect(after.content).toContain('by Monday');
    expect(after.content).not.toContain('Friday');
  });

  it('reads only tagged threads when told, and none when told none', async () => {
    const { brain, thread } = await conversation();
    brain.messages.setThreadStatus(thread, 'closed');
    const counting = countingSummarizer();
    expect(await brain.knowledge.summarizeThreads(counting, { threads: 'none' })).toMatchObject({
      summarized: 0,
    });
    expect(await brain.knowledge.summarizeThreads(counting, { threads: 'tagged' })).toMatchObject({
      summarized: 0,
    });
    brain.messages.tagThread({ thread_id: thread, add: ['extract'] });
    expect(await brain.knowledge.summarizeThreads(counting, { threads: 'tagged' })).toMatchObject({
      summarized: 1,
    });
  });

  it('never waits for the write lock: a busy pass stores nothing and the next one does', async () => {
    const { brain, thread } = await conversation();
    brain.messages.setThreadStatus(thread, 'closed');
    const other = await t.reopen();
    const { connectionOf } = await import('../../../src/brain.js');
    const db = connectionOf(other);
    db.exec('BEGIN IMMEDIATE');
    const started = Date.now();
    const busy = await brain.knowledge.summarizeThreads(countingSummarizer(), { noWait: true });
    expect(busy).toMatchObject({ summarized: 0, busy: true });
    expect(Date.now() - started).toBeLessThan(1000);
    db.exec('ROLLBACK');
    expect(brain.knowledge.threadSummary(thread)).toBeUndefined();
    expect(
      await brain.knowledge.summarizeThreads(countingSummarizer(), { noWait: true }),
    ).toMatchObject({ summarized: 1 });
  });

  it('a failing summarizer is reported per thread and the thread waits for the next pass', async () => {
    const { brain, thread } = await conversation();
    brain.messages.setThreadStatus(thread, 'closed');
    const failing: Summarizer = {
      name: 'summary',
      version: 1,
      summarize: () => Promise.reject(new Error('no words today')),
    };
    const result = await brain.knowledge.summarizeThreads(failing);
    expect(result).toMatchObject({ summarized: 0, errors: [`${thread}: no words today`] });
    expect(await brain.knowledge.summarizeThreads(createOfflineSummarizer())).toMatchObject({
      summarized: 1,
    });
  });

  it('the background worker summarizes a thread once it is closed', async () => {
    const { brain, thread } = await conversation();
    const worker = brain.knowledge.startExtracting(createOfflineExtractor(), { intervalMs: 10 });
    try {
      await vi.waitFor(() => expect(brain.knowledge.extractStatus('offline@1').pending).toBe(0));
      expect(brain.knowledge.threadSummary(thread)).toBeUndefined();
      brain.messages.setThreadStatus(thread, 'closed');
      await vi.waitFor(() => expect(brain.knowledge.threadSummary(thread)).toBeDefined(), {
        timeout: 5000,
      });
    } finally {
      await worker.stop();
    }
  });

  it('refuses a malformed thread id naming the field, and an unknown thread as not found', async () => {
    const { brain } = await conversation();
    const summarizer = createOfflineSummarizer();
    await expect(brain.knowledge.summarize('nope', summarizer)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringMatching(/^thread_id: /),
    });
    expect(() => brain.knowledge.threadSummary('nope')).toThrow(BrainError);
    const unknown = 'thr_00000000-0000-4000-8000-000000000000';
    await expect(brain.knowledge.summarize(unknown, summarizer)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(brain.knowledge.threadSummary(unknown)).toBeUndefined();
  });
});
