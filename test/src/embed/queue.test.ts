import { connectionOf } from '../../../src/brain.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { APPLICATION_ID, openBrain, startEmbeddingWorker } from '../../../src/index.js';
import { wordEmbedder } from '../../embedders.js';
import { ROOT, fixedClock, tempBrain, tempDir, type TempBrain } from '../../helpers.js';

let t: TempBrain | undefined;
afterEach(() => t?.cleanup());

function queueRows(brain: TempBrain['brain']) {
  return connectionOf(brain)
    .prepare(`SELECT item_type, item_id, attempts FROM embed_queue ORDER BY id`)
    .all() as Array<{ item_type: string; item_id: number; attempts: number }>;
}

describe('the embedding queue', () => {
  it('counts every new message, memory and atom as waiting, with no queue row each', async () => {
    t = await tempBrain();
    const { id } = t.brain.messages.send({
      from: 'helios',
      to: 'nova',
      body: 'spread gate has no edge',
    });
    t.brain.knowledge.remember({
      agent: 'nova',
      content: 'drop the spread gate',
      source_message_id: id,
    });
    t.brain.knowledge.createAtom({
      agent: 'nova',
      subject: 'spread gate',
      action: 'filter',
      outcome: 'no edge',
    });
    // New items wait above the kinds' cursors: no row, no index entry per item.
    expect(queueRows(t.brain)).toEqual([]);
    expect(t.brain.embed.embedStatus()).toMatchObject({
      pending: 3,
      failed: 0,
      embedded: 0,
      model: null,
    });

    // A rejected write leaves nothing waiting.
    expect(() =>
      t!.brain.messages.send({
        from: 'helios',
        to: 'nova',
        body: 'x',
        thread: 'thr_00000000-0000-4000-8000-000000000000',
      }),
    ).toThrow();
    expect(t.brain.embed.embedStatus().pending).toBe(3);
  });

  it('hands each new item to one drainer only, and takes a changed item again', async () => {
    t = await tempBrain();
    for (let i = 0; i < 4; i++)
      t.brain.messages.send({ from: 'helios', to: 'nova', body: `gate ${i}` });
    const first = wordEmbedder(['gate']);
    const second = wordEmbedder(['gate']);
    // Two drains at once: each claims its batch (the cursor moves past it) before awaiting.
    const results = await Promise.all([
      t.brain.embed.embedQueued(first, { batchSize: 2, maxItems: 2 }),
      t.brain.embed.embedQueued(second, { batchSize: 2, maxItems: 2 }),
    ]);
    expect(results.map((r) => r.embedded)).toEqual([2, 2]);
    const texts = [...first.calls.flat(), ...second.calls.flat()];
    expect(new Set(texts).size).toBe(4);
    expect(t.brain.embed.embedStatus()).toMatchObject({ pending: 0, embedded: 4 });

    // A change to an embedded item puts it back on the queue (trigger of migration 0004).
    connectionOf(t.brain).prepare(`UPDATE messages SET body = 'gate changed' WHERE id = 2`).run();
    expect(queueRows(t.brain)).toEqual([{ item_type: 'message', item_id: 2, attempts: 0 }]);
    const again = await t.brain.embed.embedQueued(first);
    expect(again.embedded).toBe(1);
    expect(first.calls.at(-1)![0]).toContain('gate changed');
  });

  it('drains in batches outside the write, storing one vector per item with model, dimension and hash', async () => {
    t = await tempBrain();
    for (let i = 0; i < 5; i++)
      t.brain.messages.send({ from: 'helios', to: 'nova', body: `message ${i} about gates` });
    const e = wordEmbedder(['gate', 'fills']);
    const progress: number[] = [];
    const result = await t.brain.embed.embedQueued(e, {
      batchSize: 2,
      onProgress: (p) => progress.push(p.done),
    });
    expect(result).toMatchObject({ embedded: 5, failed: 0 });
    expect(e.calls.map((c) => c.length)).toEqual([2, 2, 1]);
    expect(progress).toEqual([2, 4, 5]);
    expect(queueRows(t.brain)).toEqual([]);
    const rows = connectionOf(t.brain)
      .prepare(
        `SELECT item_type, model, dimension, length(content_hash) AS h, length(vector) AS bytes FROM embeddings`,
      )
      .all();
    expect(rows).toHaveLength(5);
    expect(rows[0]).toEqual({
      item_type: 'message',
      model: 'brain-test-words',
      dimension: 3,
      h: 32,
      bytes: 12,
    });
    const indexed = connectionOf(t.brain).prepare(`SELECT count(*) AS n FROM vec_index`).get() as {
      n: number;
    };
    expect(indexed.n).toBe(5);
  });

  it('embeds a message with its context: subject, sender, date and the message it answers', async () => {
    t = await tempBrain();
    const first = t.brain.messages.send({
      from: 'melanie',
      to: 'caroline',
      subject: 'weekend',
      body: 'What did you research?',
      at: '2023-05-08T13:56:00Z',
    });
    t.brain.messages.send({
      from: 'caroline',
      to: 'melanie',
      thread: first.thread_id,
      body: 'Adoption agencies!',
      at: '2023-05-08T13:57:00Z',
    });
    const e = wordEmbedder(['x']);
    await t.brain.embed.embedQueued(e);
    const reply = e.calls.flat()[1]!;
    expect(reply).toContain('weekend');
    expect(reply).toContain('8 May 2023, caroline to melanie:');
    expect(reply).toContain('Adoption agencies!');
    expect(reply).toContain('What did you research?');
  });

  it('does not call the model again for an item whose text did not change', async () => {
    t = await tempBrain();
    t.brain.messages.send({ from: 'helios', to: 'nova', body: 'same words' });
    const e = wordEmbedder(['same']);
    await t.brain.embed.embedQueued(e);
    connectionOf(t.brain)
      .prepare(`INSERT INTO embed_queue (item_type, item_id, enqueued_at) VALUES ('message', 1, 0)`)
      .run();
    const again = await t.brain.embed.embedQueued(e);
    expect(again).toMatchObject({ embedded: 0, unchanged: 1 });
    expect(e.calls).toHaveLength(1);
  });

  it('re-embeds everything when the model changes, and never mixes two models', async () => {
    t = await tempBrain();
    t.brain.messages.send({ from: 'helios', to: 'nova', body: 'one' });
    t.brain.knowledge.remember({ agent: 'nova', content: 'two' });
    await t.brain.embed.embedQueued(wordEmbedder(['one'], { model: 'brain-test-a' }));
    expect(t.brain.embed.vectorSpace()).toMatchObject({ model: 'brain-test-a', dimension: 2 });

    const b = wordEmbedder(['one', 'two', 'three'], { model: 'brain-test-b' });
    // Searching with another model than the vectors' answers by words, and says so.
    const before = await t.brain.search.searchHybrid({ query: 'one' }, { embedder: b });
    expect(before.retrievers).toEqual(['fts']);
    expect(before.notices[0]).toMatch(/vectors in this brain are from brain-test-a/);

    const result = await t.brain.embed.embedQueued(b);
    expect(result.embedded).toBe(2);
    expect(t.brain.embed.vectorSpace()).toMatchObject({ model: 'brain-test-b', dimension: 4 });
    const models = connectionOf(t.brain).prepare(`SELECT DISTINCT model FROM embeddings`).all();
    expect(models).toEqual([{ model: 'brain-test-b' }]);
  });

  it('isolates an item that keeps failing, so the others get embedded', async () => {
    const clock = fixedClock();
    t = await tempBrain({ clock });
    t.brain.messages.send({ from: 'helios', to: 'nova', body: 'fine one' });
    t.brain.messages.send({ from: 'helios', to: 'nova', body: 'poison pill' });
    t.brain.messages.send({ from: 'helios', to: 'nova', body: 'fine two' });
    const e = wordEmbedder(['fine'], { failOn: 'poison' });
    const first = await t.brain.embed.embedQueued(e);
    expect(first).toMatchObject({ embedded: 0, failed: 3 }); // one batch, one failure
    expect(first.errors).toEqual(['cannot embed "poison"']);
    expect(queueRows(t.brain).every((r) => r.attempts === 1)).toBe(true);

    clock.tick(11_000);
    await t.brain.embed.embedQueued(e); // batch again: fails again (attempts 2)
    clock.tick(21_000);
    await t.brain.embed.embedQueued(e); // now one at a time
    clock.tick(41_000);
    await t.brain.embed.embedQueued(e);
    clock.tick(41_000);
    await t.brain.embed.embedQueued(e);
    expect(t.brain.embed.embedStatus()).toMatchObject({ embedded: 2, failed: 1, pending: 0 });
    expect(queueRows(t.brain)).toEqual([
      { item_type: 'message', item_id: 2, attempts: expect.any(Number) },
    ]);
  });

  it('gives the items back, without counting a failure, when a drain is cancelled', async () => {
    t = await tempBrain();
    t.brain.messages.send({ from: 'helios', to: 'nova', body: 'a' });
    const controller = new AbortController();
    const slow = {
      ...wordEmbedder(['a']),
      embed: (_texts: string[], _kind: 'document' | 'query', o?: { signal?: AbortSignal }) =>
        new Promise<Float32Array[]>((_resolve, reject) => {
          o?.signal?.addEventListener('abort', () => reject(new Error('aborted')));
          controller.abort();
        }),
    };
    const result = await t.brain.embed.embedQueued(slow, { signal: controller.signal });
    expect(result.failed).toBe(0);
    expect(t.brain.embed.embedStatus()).toMatchObject({ pending: 1, failed: 0 });
  });

  it('keeps what a version 3 brain had queued, and drops the rows the cursor now covers (migration 0004)', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const path = join(dir, 'v3.db');
      const THREAD = 'thr_00000000-0000-4000-8000-000000000001';
      const old = new BetterSqlite3(path);
      for (const name of ['0001_init.sql', '0002_vectors.sql', '0003_lean_search.sql'])
        old.exec(readFileSync(join(ROOT, 'migrations', name), 'utf8'));
      old.pragma(`application_id = ${APPLICATION_ID}`);
      old.pragma('user_version = 3');
      old.exec(`INSERT INTO agents (name, created_at, last_seen_at) VALUES ('a', 'x', 'x'), ('b', 'x', 'x');
        INSERT INTO threads (uid, subject, created_by, created_at, last_message_at) VALUES ('${THREAD}', 's', 1, 'x', 'x');`);
      const send = old.prepare(
        `INSERT INTO messages (uid, thread_id, from_agent, to_agent, body, created_at) VALUES (?, 1, 1, 2, ?, '2025-01-01T00:00:00.000Z')`,
      );
      for (let i = 1; i <= 5; i++) send.run(`syn_00000000000${i}`, `words ${i}`);
      old.exec(`INSERT INTO stm (uid, agent_id, content, created_at) VALUES ('stm_1', 1, 'a memory', 'x');
        -- messages 1 and 2 were embedded; 3 failed once; 4 and 5 wait; the memory waits.
        DELETE FROM embed_queue WHERE item_type = 'message' AND item_id IN (1, 2);
        UPDATE embed_queue SET attempts = 1, retry_at = '2025-01-01T00:00:00.000Z' WHERE item_id = 3 AND item_type = 'message';
        INSERT INTO deliveries (message_id, agent_id, read_at)
          SELECT id, 2, CASE id WHEN 1 THEN '2025-01-02T03:04:05.678Z' END FROM messages;`);
      old.close();

      const brain = await openBrain({ dbPath: path });
      const cursors = connectionOf(brain)
        .prepare(`SELECT item_type, last_id FROM embed_cursor ORDER BY item_type`)
        .all();
      expect(cursors).toEqual([
        { item_type: 'atom', last_id: 0 },
        { item_type: 'message', last_id: 3 },
        { item_type: 'stm', last_id: 0 },
      ]);
      expect(queueRows(brain)).toEqual([{ item_type: 'message', item_id: 3, attempts: 1 }]);
      expect(brain.embed.embedStatus()).toMatchObject({ pending: 3, failed: 1 });
      // Read times became milliseconds and read back as the same ISO time.
      expect(
        connectionOf(brain).prepare(`SELECT read_at FROM deliveries WHERE message_id = 1`).get(),
      ).toEqual({
        read_at: Date.parse('2025-01-02T03:04:05.678Z'),
      });
      const history = brain.messages.thread({ thread_id: THREAD });
      expect(history.messages[0]!.receipts).toEqual([
        { agent: 'b', read_at: '2025-01-02T03:04:05.678Z' },
      ]);
      expect(history.messages[1]!.receipts).toEqual([{ agent: 'b', read_at: null }]);
      expect(brain.messages.poll('b').unread).toBe(4);
      brain.close();
    } finally {
      cleanup();
    }
  });

  it('queues what a brain held before vectors existed (migration 0002)', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const path = join(dir, 'old.db');
      const old = new BetterSqlite3(path);
      old.exec(readFileSync(join(ROOT, 'migrations', '0001_init.sql'), 'utf8'));
      old.pragma(`application_id = ${APPLICATION_ID}`);
      old.pragma('user_version = 1');
      old.exec(`INSERT INTO agents (name, created_at, last_seen_at) VALUES ('a', 'x', 'x');
        INSERT INTO threads (uid, subject, created_by, created_at, last_message_at) VALUES ('thr_00000000-0000-4000-8000-000000000001', 's', 1, 'x', 'x');
        INSERT INTO messages (uid, thread_id, from_agent, body, created_at) VALUES ('syn_000000000001', 1, 1, 'old words', '2025-01-01T00:00:00.000Z');`);
      old.close();
      const brain = await openBrain({ dbPath: path });
      expect(brain.embed.embedStatus().pending).toBe(1);
      expect(brain.search.search({ query: 'old words' }).hits).toHaveLength(1);
      brain.close();
    } finally {
      cleanup();
    }
  });

  it('drains in the background of a long-running process until stopped', async () => {
    vi.useFakeTimers();
    try {
      t = await tempBrain();
      const worker = startEmbeddingWorker(t.brain, wordEmbedder(['late']), { intervalMs: 1000 });
      t.brain.messages.send({ from: 'helios', to: 'nova', body: 'a late message' });
      // The first pass ran at start (nothing queued yet); the next comes after one pause.
      await vi.advanceTimersByTimeAsync(999);
      expect(t.brain.embed.embedStatus()).toMatchObject({ embedded: 0, pending: 1 });
      await vi.advanceTimersByTimeAsync(1);
      expect(t.brain.embed.embedStatus()).toMatchObject({ embedded: 1, pending: 0 });
      await worker.stop();
      t.brain.messages.send({ from: 'helios', to: 'nova', body: 'after the stop' });
      await vi.advanceTimersByTimeAsync(10_000);
      expect(t.brain.embed.embedStatus()).toMatchObject({ embedded: 1, pending: 1 });
    } finally {
      vi.useRealTimers();
    }
  });

  it('reports a failing embedder once, not on every pass', async () => {
    vi.useFakeTimers();
    try {
      t = await tempBrain();
      t.brain.messages.send({ from: 'helios', to: 'nova', body: 'poison' });
      const errors: string[] = [];
      const embedder = wordEmbedder([], { failOn: 'poison' });
      const worker = startEmbeddingWorker(t.brain, embedder, {
        intervalMs: 5,
        onError: (m) => errors.push(m),
      });
      await vi.advanceTimersByTimeAsync(100); // twenty pauses
      await worker.stop();
      expect(embedder.calls.length).toBeGreaterThan(0);
      expect(errors).toEqual(['cannot embed "poison"']);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('the hashing embedder (offline fallback)', () => {
  it('gives the same unit vector for the same text, and closer vectors to shared words', async () => {
    const { createHashEmbedder } = await import('../../../src/embed/offline-hash.js');
    const e = createHashEmbedder(256);
    const [a, b, c, d] = await e.embed(
      [
        'painting the sunrise',
        'painting the sunrise',
        'I painted a sunrise',
        'quarterly tax forms',
      ],
      'document',
    );
    const dot = (x: Float32Array, y: Float32Array) => x.reduce((s, v, i) => s + v * y[i]!, 0);
    expect(dot(a!, a!)).toBeCloseTo(1, 5);
    expect([...a!]).toEqual([...b!]);
    expect(dot(a!, c!)).toBeGreaterThan(dot(a!, d!) + 0.3);
  });
});
