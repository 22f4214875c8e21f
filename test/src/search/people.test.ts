import { afterEach, describe, expect, it } from 'vitest';
import type { Brain } from '../../../src/index.js';
import { PEOPLE_MESSAGES } from '../../../src/search/search.js';
import { tempBrain, type TempBrain } from '../../helpers.js';

let t: TempBrain | undefined;
afterEach(() => {
  t?.cleanup();
  t = undefined;
});

const WORDS = ['camping', 'trip', 'family', 'lake', 'tent', 'stars'];
const CROWD = ['c1', 'c2', 'c3', 'c4', 'c5', 'c6'];

/**
 * A crowd talking about the same things, and ana and bo among them: ana and bo talk in threads of
 * their own (a third agent answers in one), the crowd in others.
 */
function crowd(brain: Brain): Set<string> {
  const theirs = new Set<string>();
  let thread: string | undefined;
  for (let i = 0; i < 240; i++) {
    const body = Array.from({ length: 2 + (i % 4) }, (_, j) => WORDS[(i * 5 + j) % 6]).join(' ');
    if (i % 12 < 3) {
      // ana opens a thread every 12 messages; bo answers, then c1 once in a while.
      const from = i % 12 === 0 ? 'ana' : i % 12 === 1 ? 'bo' : i % 24 === 2 ? 'c1' : 'bo';
      const sent = brain.messages.send({
        from,
        to: from === 'ana' ? 'bo' : 'ana',
        body: `${body} number ${i}`,
        ...(i % 12 === 0 ? {} : { thread }),
      });
      thread = sent.thread_id;
      theirs.add(sent.id);
    } else {
      brain.messages.send({ from: CROWD[i % 6]!, to: CROWD[(i + 1) % 6]!, body: `${body} ${i}` });
    }
  }
  return theirs;
}

/** A search's hits found by one list, in that list's order. */
function listed(
  found: Awaited<ReturnType<Brain['search']['searchHybrid']>>,
  list: 'fts' | 'people',
) {
  return found.hits
    .filter((h) => h.found_by[list])
    .sort((a, b) => a.found_by[list]!.rank - b.found_by[list]!.rank)
    .map((h) => h.id);
}

describe('the conversations of the people a query names: a list of their own', () => {
  it('ranks exactly the messages of the threads they wrote in, and lifts them in the crowd', async () => {
    t = await tempBrain();
    const theirs = crowd(t.brain);
    const found = await t.brain.search.searchHybrid({ query: 'ana camping trip', limit: 200 });
    expect(found.retrievers).toEqual(['fts', 'people']);
    // The whole ranking of the same words (every match is in it), less what is not theirs.
    const whole = listed(found, 'fts');
    expect(whole.length).toBeGreaterThan(100);
    const people = listed(found, 'people');
    expect(people).toEqual(whole.filter((id) => theirs.has(id)));
    expect(people.length).toBe([...theirs].filter((id) => whole.includes(id)).length);
    // What c1 said in their thread is theirs too; what c1 said elsewhere is not.
    const c1 = found.hits.filter((h) => h.agent === 'c1');
    expect(c1.some((h) => h.found_by.people)).toBe(true);
    expect(c1.some((h) => !h.found_by.people)).toBe(true);
    // Theirs come first: each is in both lists, the crowd's in one.
    expect(found.hits.slice(0, 10).every((h) => theirs.has(h.id))).toBe(true);

    // The same list from the statements that rank without the compiled function.
    const fallback = await t.reopen({ rankFunction: false });
    const again = await fallback.search.searchHybrid({ query: 'ana camping trip', limit: 200 });
    expect(listed(again, 'people')).toEqual(people);
  });

  it('weighs the words by their rarity among those conversations, not in the whole brain', async () => {
    t = await tempBrain();
    // The crowd says "tent" all the time; among ana's messages "lake" is common and "tent" rare.
    for (let i = 0; i < 100; i++)
      t.brain.messages.send({ from: CROWD[i % 6]!, to: CROWD[(i + 1) % 6]!, body: `a tent ${i}` });
    const lakes: string[] = [];
    let thread: string | undefined;
    for (let i = 0; i < 10; i++) {
      const sent = t.brain.messages.send({
        from: 'ana',
        to: 'bo',
        body: `the lake again ${i}`,
        ...(thread ? { thread } : {}),
      });
      thread = sent.thread_id;
      lakes.push(sent.id);
    }
    const tent = t.brain.messages.send({ from: 'ana', to: 'bo', body: 'my new tent', thread });
    const ask = (b: Brain) =>
      b.search.searchHybrid({ query: 'ana tent lake', types: ['message'], limit: 20 });
    const found = await ask(t.brain);
    expect(found.retrievers).toEqual(['fts', 'people']);
    expect(listed(found, 'people')[0]).toBe(tent.id);
    // The same with a thread left out (the assistant leaves out its own session).
    const other = t.brain.messages.send({ from: 'c1', to: 'c2', body: 'tent talk' });
    const leaving = await t.brain.search.searchHybrid({
      query: 'ana tent lake',
      types: ['message'],
      limit: 20,
      exclude_thread: other.thread_id,
    });
    expect(listed(leaving, 'people')[0]).toBe(tent.id);
    // In the whole brain "tent" is the common word: there, and where the list is ranked by
    // statements (no compiled extension), the lake comes first.
    expect(lakes).toContain(listed(found, 'fts')[0]);
    const fallback = await t.reopen({ rankFunction: false });
    expect(lakes).toContain(listed(await ask(fallback), 'people')[0]);
  });

  it('ranks a time asked among their conversations exactly, whichever way it is ranked', async () => {
    t = await tempBrain();
    crowd(t.brain);
    const ask = (b: Brain) =>
      b.search.searchHybrid(
        { query: 'what did ana and bo say about the lake today', limit: 50, types: ['message'] },
        { timeWords: { timeZone: 'UTC' } },
      );
    // Everything was said today: "today" is the period, and all of it is in it.
    const found = await ask(t.brain);
    expect(found.retrievers).toEqual(['fts', 'time', 'people']);
    expect(found.hits.filter((h) => h.found_by.time).length).toBeGreaterThan(20);
    const fallback = await t.reopen({ rankFunction: false });
    const again = await ask(fallback);
    expect(again.hits.map((h) => h.id)).toEqual(found.hits.map((h) => h.id));
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
    // Nor for one who only ever received: there is no conversation of theirs to prefer.
    for (let i = 0; i < 40; i++)
      t.brain.messages.send({ from: 'cy', to: 'dan', body: `fees ${i}` });
    const received = t.brain.search.search({ query: 'what did bo hear about camping' });
    expect(received.retrievers).toEqual(['fts']);
    expect(PEOPLE_MESSAGES).toBeGreaterThanOrEqual(10_000);
  });
});
