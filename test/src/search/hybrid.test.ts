import { afterEach, describe, expect, it } from 'vitest';
import { BrainError, type Embedder } from '../../../src/index.js';
import { mulberry32 } from '../../../bench/crash.js';
import { RANK_PREFERENCES } from '../../../src/search/search.js';
import { wordEmbedder } from '../../embedders.js';
import { fixedClock, tempBrain, type TempBrain } from '../../helpers.js';

let t: TempBrain | undefined;
afterEach(() => t?.cleanup());

const vocabulary = ['gate', 'other', 'fills', 'memory'];

describe('vector search', () => {
  it('applies every filter inside the k-nearest-neighbour scan, so filtered hits are never cut', async () => {
    const words = wordEmbedder(vocabulary);
    t = await tempBrain({ clock: fixedClock('2026-01-01T00:00:00.000Z') });
    const loud = t.brain.messages.send({
      from: 'loud',
      to: 'quiet',
      subject: 'gates',
      body: 'gate',
    });
    for (let i = 0; i < 300; i++)
      t.brain.messages.send({ from: 'loud', to: 'quiet', thread: loud.thread_id, body: 'gate' });
    const other = t.brain.messages.send({
      from: 'quiet',
      to: 'loud',
      subject: 'elsewhere',
      body: 'gate other',
      at: '2026-06-01T00:00:00Z',
    });
    await t.brain.embed.embedQueued(words);

    const search = (input: Record<string, unknown>) =>
      t!.brain.search.searchHybrid(
        { query: 'gate', limit: 1, ...input },
        { embedder: words, mode: 'vector' },
      );
    // Unfiltered, the 301 closer vectors fill the top.
    expect((await search({})).hits[0]!.id).not.toBe(other.id);
    expect((await search({ agent: 'quiet' })).hits.map((h) => h.id)).toEqual([other.id]);
    expect((await search({ thread: other.thread_id })).hits.map((h) => h.id)).toEqual([other.id]);
    expect((await search({ since: '2026-05-31' })).hits.map((h) => h.id)).toEqual([other.id]);
    expect((await search({ until: '2026-05-31', agent: 'quiet' })).hits).toEqual([]);
    const without = await search({ exclude_thread: loud.thread_id });
    expect(without.hits.map((h) => h.id)).toEqual([other.id]);
    const hit = (await search({ agent: 'quiet' })).hits[0]!;
    expect(hit.found_by.vector).toMatchObject({ rank: 1 });
    expect(hit.found_by.fts).toBeUndefined();
  });

  it('keeps types apart and leaves out expired memories', async () => {
    const words = wordEmbedder(vocabulary);
    const clock = fixedClock('2026-01-01T00:00:00.000Z');
    t = await tempBrain({ clock });
    t.brain.messages.send({ from: 'a', to: 'b', body: 'memory of fills' });
    const live = t.brain.knowledge.remember({ agent: 'a', content: 'memory of fills, kept' });
    t.brain.knowledge.remember({
      agent: 'a',
      content: 'memory of fills, fading',
      expires_at: '2026-01-02T00:00:00Z',
    });
    const atom = t.brain.knowledge.createAtom({
      agent: 'a',
      subject: 'fills',
      action: 'memory',
      outcome: 'ok',
    });
    await t.brain.embed.embedQueued(words);
    clock.tick(3 * 86_400_000);
    const found = await t.brain.search.searchHybrid(
      { query: 'memory fills', types: ['stm', 'atom'] },
      { embedder: words, mode: 'vector' },
    );
    expect(found.hits.map((h) => h.id).sort()).toEqual([live.id, atom.id].sort());
  });

  it('leaves out memories superseded or lapsed since they were embedded', async () => {
    const words = wordEmbedder(vocabulary);
    t = await tempBrain();
    const kept = t.brain.knowledge.remember({ agent: 'a', content: 'memory of fills' });
    const newer = t.brain.knowledge.remember({ agent: 'b', content: 'memory of the fills' });
    await t.brain.embed.embedQueued(words);
    // Reflection merges the newer into the older: the newer is superseded after its embedding.
    expect(t.brain.knowledge.reflect().merged).toBe(1);
    const search = () =>
      t!.brain.search.searchHybrid(
        { query: 'memory fills', types: ['stm'] },
        { embedder: words, mode: 'vector' },
      );
    expect((await search()).hits.map((h) => h.id)).toEqual([kept.id]);
    t.brain.knowledge.undoChange(t.brain.knowledge.knowledgeChanges()[0]!.id);
    expect((await search()).hits.map((h) => h.id).sort()).toEqual([kept.id, newer.id].sort());
  });
});

describe('hybrid search', () => {
  it('answers by words before anything is embedded, without waiting for the embedder', async () => {
    const words = wordEmbedder(vocabulary);
    t = await tempBrain();
    const { id } = t.brain.messages.send({
      from: 'a',
      to: 'b',
      body: 'the spread gate has no edge',
    });
    const result = await t.brain.search.searchHybrid({ query: 'spread gate' }, { embedder: words });
    expect(result).toMatchObject({ retrievers: ['fts'], notices: [] });
    expect(result.hits.map((h) => h.id)).toEqual([id]);
    expect(words.calls).toEqual([]); // no vectors in the brain: the query was not even embedded
  });

  it('finds by meaning what shares no word with the query, and tells which retriever found what', async () => {
    const words = wordEmbedder(vocabulary);
    t = await tempBrain();
    const byWords = t.brain.messages.send({ from: 'a', to: 'b', body: 'the gate report' });
    const byVector = t.brain.messages.send({
      from: 'a',
      to: 'b',
      body: 'gatekeeper: other findings',
    });
    await t.brain.embed.embedQueued(words);
    const result = await t.brain.search.searchHybrid({ query: 'gate report' }, { embedder: words });
    expect(result.retrievers).toEqual(['fts', 'vector']);
    const ids = result.hits.map((h) => h.id);
    expect(ids).toContain(byWords.id);
    expect(ids).toContain(byVector.id);
    const vectorOnly = result.hits.find((h) => h.id === byVector.id)!;
    expect(Object.keys(vectorOnly.found_by)).toEqual(['vector']);
    const both = result.hits.find((h) => h.id === byWords.id)!;
    expect(Object.keys(both.found_by).sort()).toEqual(['fts', 'vector']);
    expect(both.score).toBeCloseTo(both.found_by.fts!.part! + both.found_by.vector!.part!, 5);
    expect(ids[0]).toBe(byWords.id);
  });

  it('ranks higher what an agent named in the query said', async () => {
    t = await tempBrain();
    const helios = t.brain.messages.send({
      from: 'helios',
      to: 'nova',
      body: 'the spread gate is useless',
    });
    const nova = t.brain.messages.send({
      from: 'nova',
      to: 'helios',
      body: 'the spread gate is useless',
    });
    const plain = t.brain.search.search({ query: 'spread gate useless' });
    expect(plain.hits.map((h) => h.id)).toEqual([helios.id, nova.id]);
    const named = t.brain.search.search({ query: 'what does nova think of the spread gate?' });
    expect(named.hits.map((h) => h.id)).toEqual([nova.id, helios.id]);
    expect(named.hits[0]!.boost).toBe(2);
    expect(named.hits[1]!.boost).toBeUndefined();
  });

  it('finds a message through its context: the message it answers, and its date', async () => {
    t = await tempBrain();
    const q = t.brain.messages.send({
      from: 'melanie',
      to: 'caroline',
      subject: 'catch-up',
      body: 'What did you research lately?',
      at: '2023-05-08T13:56:00Z',
    });
    const reply = t.brain.messages.send({
      from: 'caroline',
      to: 'melanie',
      thread: q.thread_id,
      body: 'Adoption agencies!',
      at: '2023-05-08T13:57:00Z',
    });
    t.brain.messages.send({
      from: 'caroline',
      to: 'melanie',
      subject: 'later',
      body: 'Nothing new here',
      at: '2023-07-01T10:00:00Z',
    });
    const research = t.brain.search.search({ query: 'research' });
    expect(research.hits.map((h) => h.id)).toEqual([q.id, reply.id]);
    expect(research.hits[1]!.snippet).toBe('Adoption agencies!');
    const may = t.brain.search.search({ query: 'May 2023' });
    expect(
      may.hits
        .slice(0, 2)
        .map((h) => h.id)
        .sort(),
    ).toEqual([q.id, reply.id].sort());
  });

  it('lifts what means the query in the period it names, by a list of the vectors of that period', async () => {
    const words = wordEmbedder(['camp', 'lake']);
    t = await tempBrain({ clock: fixedClock('2026-11-01T00:00:00.000Z') });
    // Sixty messages outside June closer to the query's meaning than the one in June; none holds
    // the word itself ("campfire" is one token to the index, "camp" is part of it to the model).
    for (let i = 0; i < 60; i++) {
      t.brain.messages.send({
        from: 'melanie',
        to: 'caroline',
        body: `campfire night ${i}`,
        at: `2026-0${i % 2 === 0 ? 3 : 9}-${String(1 + (i % 28)).padStart(2, '0')}T12:00:00Z`,
      });
    }
    const june = t.brain.messages.send({
      from: 'melanie',
      to: 'caroline',
      body: 'a campfire by the lake',
      at: '2026-06-14T12:00:00Z',
    });
    await t.brain.embed.embedQueued(words);
    const ask = () =>
      t!.brain.search.searchHybrid(
        { query: 'camp in June', types: ['message'], limit: 20 },
        { embedder: words, timeWords: { timeZone: 'UTC', now: new Date('2026-11-01T00:00:00Z') } },
      );
    const found = await ask();
    expect(found.retrievers).toEqual(['fts', 'time', 'vector', 'time_vector']);
    const hit = found.hits.find((h) => h.id === june.id);
    expect(hit?.found_by.time_vector?.rank).toBe(1);
    // Without that list the vectors' best fifty, all outside June, leave it out.
    const kept = RANK_PREFERENCES.timeVector;
    RANK_PREFERENCES.timeVector = 0;
    try {
      const without = await ask();
      expect(without.retrievers).toEqual(['fts', 'time', 'vector']);
      expect(without.hits.map((h) => h.id)).not.toContain(june.id);
    } finally {
      RANK_PREFERENCES.timeVector = kept;
    }
  });

  it('rejects bad input with a clear error and answers odd queries without failing', async () => {
    const words = wordEmbedder(vocabulary);
    t = await tempBrain();
    t.brain.messages.send({ from: 'a', to: 'b', body: 'x' });
    const bad = async (input: Record<string, unknown>) =>
      t!.brain.search
        .searchHybrid({ query: 'x', ...input } as never, { embedder: words })
        .catch((e: unknown) => e);
    for (const [input, message] of [
      [{ query: '   ' }, /query: must not be empty/],
      [{ query: 'x'.repeat(2001) }, /query: must be at most 2000 characters/],
      [{ types: ['message', 'email'] }, /types.1: must be one of message, stm, atom/],
      [{ since: 'yesterday' }, /since: must be an ISO 8601 date/],
      [{ until: '2026-13-45' }, /until: must be an ISO 8601 date/],
    ] as const) {
      const err = await bad(input);
      expect(err).toBeInstanceOf(BrainError);
      expect((err as BrainError).code).toBe('INVALID_INPUT');
      expect((err as Error).message).toMatch(message);
    }
    const symbols = await t.brain.search.searchHybrid({ query: '*** ((( ^' }, { embedder: words });
    expect(symbols).toMatchObject({ hits: [], notices: ['the query has no words to search for'] });
  });
});

describe('a slow in-process embedder', () => {
  it('does not hold up a search longer than the query timeout', async () => {
    t = await tempBrain();
    const words = wordEmbedder(vocabulary);
    const { id } = t.brain.messages.send({ from: 'a', to: 'b', body: 'gate notes' });
    await t.brain.embed.embedQueued(words);
    const stuck = { ...words, embed: () => new Promise<Float32Array[]>(() => {}) };
    const started = Date.now();
    const result = await t.brain.search.searchHybrid(
      { query: 'gate' },
      { embedder: stuck, queryTimeoutMs: 100 },
    );
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(result.retrievers).toEqual(['fts']);
    expect(result.notices).toEqual([
      'searched by words only: the query was not embedded within 0.1 s',
    ]);
    expect(result.hits.map((h) => h.id)).toEqual([id]);
  });
});

describe('how deep each retriever proposes', () => {
  it('fuses the words retriever’s best 100 matches: one ranked 70th by words still gets its words’ part', async () => {
    // The query and the message holding "beacon" point one way, every other message another.
    const marked: Embedder = {
      provider: 'offline',
      model: 'brain-test-beacon',
      batchSize: 16,
      embed: (texts, kind) =>
        Promise.resolve(
          texts.map((text) =>
            kind === 'query' || text.includes('beacon')
              ? Float32Array.of(1, 0)
              : Float32Array.of(0, 1),
          ),
        ),
    };
    t = await tempBrain({ clock: fixedClock() });
    // 80 messages holding "gate" once, each longer than the one before: BM25 ranks them in order.
    const ids: string[] = [];
    for (let i = 0; i < 80; i++) {
      const filler = Array.from({ length: i }, (_, j) => `w${j}`).join(' ');
      const marker = i === 69 ? 'beacon' : 'plain';
      ids.push(
        t.brain.messages.send({
          from: 'a',
          to: 'b',
          subject: 'note',
          body: `gate ${marker} ${filler}`,
        }).id,
      );
    }
    await t.brain.embed.embedQueued(marked);
    const { hits } = await t.brain.search.searchHybrid(
      { query: 'gate', types: ['message'], limit: 60 },
      { embedder: marked },
    );
    const beacon = hits.find((h) => h.id === ids[69])!;
    expect(beacon.found_by.vector).toMatchObject({ rank: 1 });
    expect(beacon.found_by.fts).toMatchObject({ rank: 70 });
  });
});

describe('what hits carry', () => {
  it('brings each hit’s whole row instead of a marked snippet when asked', async () => {
    const b = (t = await tempBrain({ clock: fixedClock() })).brain;
    const long = `${'filler words before '.repeat(20)}the kettle at the end`;
    const message = b.messages.send({ from: 'a', to: 'b', subject: 'kitchen', body: long });
    const stm = b.knowledge.remember({ agent: 'a', content: 'the kettle is descaled monthly' });
    const atom = b.knowledge.createAtom({
      agent: 'a',
      subject: 'kettle',
      action: 'descaled',
      outcome: 'quiet again',
    });
    const byId = (hits: Awaited<ReturnType<typeof b.search.searchHybrid>>['hits']) =>
      new Map(hits.map((h) => [h.id, h]));

    const marked = byId((await b.search.searchHybrid({ query: 'kettle' })).hits);
    expect(marked.get(message.id)!.snippet).toContain('[kettle]');
    expect(marked.get(message.id)!.record).toBeUndefined();

    const whole = byId(
      (await b.search.searchHybrid({ query: 'kettle' }, { snippets: false, records: true })).hits,
    );
    expect([...whole.keys()].sort()).toEqual([...marked.keys()].sort());
    // The text's start, unmarked: the caller shows the record's whole text.
    expect(whole.get(message.id)!.snippet).not.toContain('[');
    expect(whole.get(message.id)!.record).toEqual(b.messages.getMessage(message.id));
    expect(whole.get(stm.id)!.record).toEqual(b.knowledge.getStm(stm.id));
    expect(whole.get(atom.id)!.record).toEqual(b.knowledge.getAtom(atom.id));
  });
});

describe('how deep the words retriever ranks', () => {
  it('shows the same first hits whether STM, atoms and the word coverage of messages go only as deep as the hits shown or 100 deep, ties included', async () => {
    const b = (t = await tempBrain({ clock: fixedClock() })).brain;
    const words = ['kiln', 'glaze', 'clay', 'wheel', 'fire', 'ash'];
    const next = mulberry32(11);
    const text = () =>
      Array.from({ length: 1 + Math.floor(next() * 5) }, () => words[Math.floor(next() * 6)]).join(
        ' ',
      );
    b.batch(() => {
      let thread: string | undefined;
      for (let i = 0; i < 120; i++) {
        // Threads of a few messages: a hit's neighbours gain from it, and lend it their words.
        thread = b.messages.send({
          from: 'ann',
          to: 'bob',
          body: text(),
          ...(i % 4 && { thread }),
        }).thread_id;
        // Many entries with the very same text: ties at every cut.
        b.knowledge.remember({ agent: 'ann', content: i % 3 === 0 ? 'kiln glaze' : text() });
        // Holding every word of "kiln zircon" but long, and its rare word twice but short: the
        // second kind outranks the first, and is in the list only once it widens to any word.
        if (i % 12 === 0)
          b.knowledge.remember({ agent: 'ann', content: `kiln zircon ${'pot '.repeat(60)}` });
        if (i % 40 === 5) b.knowledge.remember({ agent: 'ann', content: 'zircon zircon' });
        b.knowledge.createAtom({ agent: 'ann', subject: text(), action: text(), outcome: 'ok' });
      }
    });
    for (const query of [
      'kiln',
      'kiln glaze',
      'kiln zircon',
      'clay wheel fire',
      'glaze ash kiln',
    ]) {
      for (const types of [undefined, ['message' as const], ['stm' as const], ['atom' as const]]) {
        const deep = (await b.search.searchHybrid({ query, types, limit: 100 })).hits;
        for (const limit of [1, 5, 12, 40]) {
          const where = `${query} ${types?.join() ?? 'all'} ${limit}`;
          const shown = (await b.search.searchHybrid({ query, types, limit })).hits;
          expect(shown, where).toEqual(deep.slice(0, limit));
          expect(b.search.search({ query, types, limit }).hits, where).toEqual(
            deep.slice(0, limit),
          );
        }
      }
    }
  });
});
