import { afterEach, describe, expect, it } from 'vitest';
import { PEOPLE_MESSAGES } from '../../../src/search/search.js';
import { tempBrain, type TempBrain } from '../../helpers.js';

let t: TempBrain | undefined;
afterEach(() => {
  t?.cleanup();
  t = undefined;
});

const WORDS = ['camping', 'trip', 'family', 'lake', 'tent', 'stars'];

/** A crowd of agents talking about the same things, and ana and bo among them. */
async function crowd(): Promise<TempBrain> {
  const brain = await tempBrain();
  const crowdNames = ['c1', 'c2', 'c3', 'c4', 'c5', 'c6'];
  for (let i = 0; i < 240; i++) {
    const body = Array.from({ length: 2 + (i % 4) }, (_, j) => WORDS[(i * 5 + j) % 6]).join(' ');
    const from = i % 12 === 0 ? 'ana' : crowdNames[i % 6]!;
    const to = i % 12 === 6 ? 'bo' : crowdNames[(i + 1) % 6]!;
    brain.brain.messages.send({ from, to, body: `${body} number ${i}` });
  }
  return brain;
}

describe("the people a query names: their messages' own list", () => {
  it('ranks exactly the messages from or to them, and lifts them in the crowd', async () => {
    t = await crowd();
    const found = t.brain.search.search({ query: 'ana camping trip', limit: 200 });
    expect(found.retrievers).toEqual(['fts', 'people']);
    const listed = found.hits
      .filter((h) => h.found_by.people)
      .sort((a, b) => a.found_by.people!.rank - b.found_by.people!.rank);
    // The whole ranking of the same words (every match is in it), less what neither ana sent nor
    // was sent.
    const all = found.hits
      .filter((h) => h.found_by.fts)
      .sort((a, b) => a.found_by.fts!.rank - b.found_by.fts!.rank);
    expect(all.length).toBeGreaterThan(100);
    const fromOrTo = (id: string) => {
      const m = t!.brain.messages.getMessage(id)!;
      return m.from === 'ana' || m.to === 'ana';
    };
    const exhaustive = all.filter((h) => fromOrTo(h.id));
    expect(listed.map((h) => h.id)).toEqual(exhaustive.map((h) => h.id));
    expect(listed.length).toBe(20);
    // Its messages come first: each is in both lists, the crowd's in one.
    expect(found.hits.slice(0, 10).every((h) => fromOrTo(h.id))).toBe(true);
  });

  it("has no list when the people named hold most of the brain's messages", async () => {
    t = await tempBrain();
    for (let i = 0; i < 30; i++) {
      t.brain.messages.send({ from: 'ana', to: i % 3 ? 'bo' : 'cy', body: `camping trip ${i}` });
    }
    t.brain.messages.send({ from: 'cy', to: 'bo', body: 'camping alone' });
    const found = t.brain.search.search({ query: 'what did ana say about camping' });
    expect(found.retrievers).toEqual(['fts']);
    expect(found.hits[0]!.boost).toBe(2);
    expect(PEOPLE_MESSAGES).toBeGreaterThanOrEqual(10_000);
  });
});
