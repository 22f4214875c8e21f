import { afterEach, describe, expect, it } from 'vitest';
import { tempBrain, type TempBrain } from '../../helpers.js';

let t: TempBrain | undefined;
afterEach(() => {
  t?.cleanup();
  t = undefined;
});

describe('what a score is made of (explain)', () => {
  it("splits the words' score into BM25, context and coverage, and BM25 by field", async () => {
    t = await tempBrain();
    // Words in more than half the rows weigh nothing in BM25: a crowd of others first.
    for (let i = 0; i < 30; i++) {
      t.brain.messages.send({ from: 'vega', to: 'nova', body: `weather talk number ${i}` });
    }
    const first = t.brain.messages.send({
      from: 'nova',
      to: 'helios',
      subject: 'escrow fees',
      body: 'the escrow fees are due friday',
    });
    const reply = t.brain.messages.send({
      from: 'helios',
      to: 'nova',
      thread: first.thread_id,
      body: 'yes',
    });
    const found = await t.brain.search.searchHybrid(
      { query: 'escrow fees', limit: 5 },
      { explain: true },
    );
    expect(new Set(found.hits.map((h) => h.id))).toEqual(new Set([first.id, reply.id]));
    const [question, answer] = [first.id, reply.id].map((id) =>
      found.hits.find((h) => h.id === id)!,
    );
    for (const hit of found.hits) {
      const { parts, score } = hit.found_by.fts!;
      expect(parts!.bm25 + parts!.context + parts!.words).toBeCloseTo(score, 5);
      expect(parts!.words).toBe(4); // both words of the query, 2 each (CONTEXT_WEIGHTS)
    }
    // The subject counts twice the body: the same two words weigh twice as much there.
    expect(question!.fields).toEqual({ subject: 0.67, body: 0.33 });
    // The reply's words are its thread's subject; it also gains from the message it answers.
    expect(answer!.fields).toEqual({ subject: 1 });
    expect(answer!.found_by.fts!.parts!.context).toBeGreaterThan(0);

    const plain = await t.brain.search.searchHybrid({ query: 'escrow fees', limit: 5 });
    expect(plain.hits[0]!.fields).toBeUndefined();
    expect(plain.hits[0]!.found_by.fts!.parts).toBeUndefined();
    expect(plain.hits.map((h) => h.id)).toEqual(found.hits.map((h) => h.id));
  });
});
