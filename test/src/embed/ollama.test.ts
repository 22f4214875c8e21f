import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isOfflineModel } from '../../../src/embed/offline.js';
import { EmbedderError, createEmbedder } from '../../../src/index.js';
import { createOllamaEmbedder } from '../../../src/embed/ollama.js';
import { fixedClock, tempBrain, type TempBrain } from '../../helpers.js';
import { startFakeOllama, type FakeOllama } from '../../fakes/ollama.js';

let fake: FakeOllama;
let t: TempBrain;
const clock = fixedClock('2026-03-01T00:00:00.000Z');

beforeEach(async () => {
  fake = await startFakeOllama();
  t = await tempBrain({ clock });
});
afterEach(async () => {
  t.cleanup();
  await fake.close();
});

function seed(n: number): string[] {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    ids.push(
      t.brain.messages.send({
        from: 'helios',
        to: 'nova',
        body: `note number ${i} about the spread gate`,
      }).id,
    );
  }
  return ids;
}

describe('the Ollama embedder', () => {
  it('embeds many texts per call through /api/embed, with the nomic prefixes', async () => {
    const ollama = createOllamaEmbedder({
      host: fake.host,
      model: 'nomic-embed-text',
      batchSize: 4,
    });
    seed(10);
    const result = await t.brain.embed.embedQueued(ollama);
    expect(result).toMatchObject({ embedded: 10, failed: 0, stopped_by: null });
    expect(fake.requests.length).toBe(3); // 4 + 4 + 2
    expect(fake.requests[0]!.input).toHaveLength(4);
    expect(fake.requests.every((r) => r.model === 'nomic-embed-text')).toBe(true);
    expect(
      fake.requests.flatMap((r) => r.input).every((s) => s.startsWith('search_document: ')),
    ).toBe(true);
    expect(t.brain.embed.embedStatus()).toMatchObject({
      pending: 0,
      failed: 0,
      embedded: 10,
      model: 'nomic-embed-text',
      dimension: 768,
    });

    const [q] = await ollama.embed(['spread gate'], 'query');
    expect(fake.requests.at(-1)!.input).toEqual(['search_query: spread gate']);
    let norm = 0;
    for (const x of q!) norm += x * x;
    expect(norm).toBeCloseTo(1, 5);
  });

  it('finds by vector what it embedded, and explains which retriever found it', async () => {
    const ollama = createOllamaEmbedder({ host: fake.host, model: 'nomic-embed-text' });
    seed(3);
    await t.brain.embed.embedQueued(ollama);
    const result = await t.brain.search.searchHybrid(
      { query: 'spread gate' },
      { embedder: ollama },
    );
    expect(result.retrievers).toEqual(['fts', 'vector']);
    expect(result.hits).toHaveLength(3);
    for (const hit of result.hits) {
      expect(hit.found_by.fts?.rank).toBeGreaterThan(0);
      expect(hit.found_by.vector?.rank).toBeGreaterThan(0);
      expect(hit.score).toBeCloseTo(
        (hit.found_by.fts!.part ?? 0) + (hit.found_by.vector!.part ?? 0),
        5,
      );
    }
  });

  const failures: Array<[FakeOllama['mode'], RegExp]> = [
    ['http500', /HTTP 500: model runner crashed/],
    ['not-json', /HTTP 502/],
    ['wrong-dimension', /dimension 384; expected 768/],
    ['nan', /NaN or infinite/],
  ];
  for (const [mode, message] of failures) {
    it(`keeps items queued with a clear error when Ollama misbehaves (${mode})`, async () => {
      const ollama = createOllamaEmbedder({ host: fake.host, model: 'nomic-embed-text' });
      const [id] = seed(2);
      fake.mode = mode;
      const result = await t.brain.embed.embedQueued(ollama);
      expect(result.embedded).toBe(0);
      expect(result.failed).toBe(2);
      expect(result.errors[0]).toMatch(message);
      const status = t.brain.embed.embedStatus();
      expect(status).toMatchObject({ pending: 0, failed: 2, embedded: 0 });
      expect(status.last_error).toMatch(message);

      // Search still answers, by words.
      const found = await t.brain.search.searchHybrid(
        { query: 'spread gate' },
        { embedder: ollama },
      );
      expect(found.hits.map((h) => h.id)).toContain(id);

      // Backoff: nothing is retried before its time; after it, a healthy Ollama embeds them.
      fake.mode = 'ok';
      expect((await t.brain.embed.embedQueued(ollama)).embedded).toBe(0);
      clock.tick(60_000);
      expect((await t.brain.embed.embedQueued(ollama)).embedded).toBe(2);
      expect(t.brain.embed.embedStatus()).toMatchObject({ pending: 0, failed: 0, embedded: 2 });
    });
  }

  it('gives up on a call after its timeout, stops the pass, and leaves the items queued', async () => {
    const ollama = createOllamaEmbedder({
      host: fake.host,
      model: 'nomic-embed-text',
      timeoutMs: 200,
    });
    seed(3);
    fake.mode = 'slow';
    const result = await t.brain.embed.embedQueued(ollama, { batchSize: 1 });
    expect(result.stopped_by).toMatch(/did not answer within 0.2 s/);
    expect(result.failed).toBe(1); // the pass stopped at the first unreachable call
    expect(t.brain.embed.embedStatus()).toMatchObject({ pending: 2, failed: 1, embedded: 0 });
  });

  it('says clearly when nothing listens at the host', async () => {
    await fake.close();
    const ollama = createOllamaEmbedder({ host: fake.host, model: 'nomic-embed-text' });
    const err = await ollama.embed(['x'], 'document').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EmbedderError);
    expect((err as EmbedderError).unavailable).toBe(true);
    expect((err as Error).message).toMatch(/cannot reach Ollama at http:\/\/127\.0\.0\.1:\d+/);
    fake = await startFakeOllama(); // for afterEach
  });

  it('answers searches by words when the query cannot be embedded in time', async () => {
    const ollama = createOllamaEmbedder({ host: fake.host, model: 'nomic-embed-text' });
    const [id] = seed(2);
    await t.brain.embed.embedQueued(ollama);
    fake.mode = 'slow';
    const started = Date.now();
    const result = await t.brain.search.searchHybrid(
      { query: 'spread gate' },
      { embedder: ollama, queryTimeoutMs: 150 },
    );
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(result.retrievers).toEqual(['fts']);
    expect(result.notices.join(' ')).toMatch(/searched by words only/);
    expect(result.hits.map((h) => h.id)).toContain(id);
  });
});

describe('choosing the embedder', () => {
  it('auto: Ollama when it answers and has the model, silently', async () => {
    const said: string[] = [];
    const e = await createEmbedder(
      { embedder: 'auto', ollamaHost: fake.host, embedModel: 'nomic-embed-text' },
      { notice: (l) => said.push(l) },
    );
    expect(e?.provider).toBe('ollama');
    expect(said).toEqual([]);
  });

  it('auto: the offline embedder when Ollama lacks the model, said once', async () => {
    fake.models = ['llama3:latest'];
    const said: string[] = [];
    const e = await createEmbedder(
      { embedder: 'auto', ollamaHost: fake.host, embedModel: 'nomic-embed-text' },
      { notice: (l) => said.push(l) },
    );
    expect(e?.provider).toBe('offline');
    expect(isOfflineModel(e!.model)).toBe(true);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/no model nomic-embed-text.*offline embedder/);
  });

  it('auto: a brain with Ollama vectors keeps Ollama while it is away', async () => {
    const ollama = createOllamaEmbedder({ host: fake.host, model: 'nomic-embed-text' });
    seed(1);
    await t.brain.embed.embedQueued(ollama);
    await fake.close();
    const said: string[] = [];
    const e = await createEmbedder(
      { embedder: 'auto', ollamaHost: fake.host, embedModel: 'nomic-embed-text' },
      { notice: (l) => said.push(l), brain: t.brain.embed, probeTimeoutMs: 300 },
    );
    expect(e?.provider).toBe('ollama');
    expect(said[0]).toMatch(/vectors are from nomic-embed-text/);
    fake = await startFakeOllama();
  });

  it('none turns vectors off; search for a brain without vectors needs no embedder', async () => {
    expect(
      await createEmbedder({
        embedder: 'none',
        ollamaHost: fake.host,
        embedModel: 'nomic-embed-text',
      }),
    ).toBeUndefined();
    expect(
      await createEmbedder(
        { embedder: 'auto', ollamaHost: fake.host, embedModel: 'nomic-embed-text' },
        { brain: t.brain.embed, purpose: 'search' },
      ),
    ).toBeUndefined();
    expect(fake.requests).toHaveLength(0);
  });
});
