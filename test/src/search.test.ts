import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildFtsQueries, queryTerms } from '../../src/search/fts-query.js';
import { fixedClock, tempBrain, type TempBrain } from '../helpers.js';

let t: TempBrain;
let clock: ReturnType<typeof fixedClock>;
beforeEach(async () => {
  clock = fixedClock();
  t = await tempBrain({ clock });
});
afterEach(() => t.cleanup());

describe('query builder', () => {
  it('quotes every word, drops stop words, and widens with OR', () => {
    expect(buildFtsQueries('What did the spread gate do?')).toEqual({
      all: '"spread" "gate"',
      any: '"spread" OR "gate"',
      terms: ['spread', 'gate'],
      stopWordsOnly: false,
    });
    expect(queryTerms('the who')).toEqual(['the', 'who']);
    expect(buildFtsQueries('The Who')?.stopWordsOnly).toBe(true);
    expect(buildFtsQueries('🙂 ... ***')).toBeUndefined();
    expect(queryTerms('Café CAFÉ naïve')).toEqual(['café', 'naïve']);
  });
});

describe('search', () => {
  function seed() {
    const m = t.brain.messages.send({
      from: 'helios',
      to: 'nova',
      subject: 'spread gate',
      body: 'The spread gate has zero predictive power over fills',
    });
    clock.tick(3_600_000);
    const other = t.brain.messages.send({
      from: 'nova',
      to: 'helios',
      subject: 'lunch',
      body: 'pizza or ramen for the team?',
    });
    const s = t.brain.knowledge.remember({
      agent: 'nova',
      content: 'Spread gate is useless as a predictor',
      source_message_id: m.id,
    });
    const a = t.brain.knowledge.createAtom({
      agent: 'nova',
      subject: 'spread gate',
      action: 'entry filter',
      outcome: 'no edge',
    });
    return { m, other, s, a };
  }

  it('finds messages, STM and atoms together, each hit with type, time, thread and agent', () => {
    const { m, s, a } = seed();
    const { hits } = t.brain.search.search({ query: 'spread gate' });
    expect(hits.map((h) => h.id).sort()).toEqual([m.id, s.id, a.id].sort());
    const hit = hits.find((h) => h.id === m.id)!;
    expect(hit).toMatchObject({
      type: 'message',
      title: 'spread gate',
      thread_id: m.thread_id,
      agent: 'helios',
      time: m.created_at,
    });
    expect(hit.snippet).toContain('[spread] [gate]');
    expect(hit.found_by.fts?.rank).toBeGreaterThan(0);
    expect(hits.find((h) => h.id === s.id)!.thread_id).toBe(m.thread_id);
  });

  it("shows each hit's own snippet", () => {
    const first = t.brain.messages.send({
      from: 'a',
      to: 'b',
      subject: 'spread gate',
      body: 'first body',
    });
    const reply = t.brain.messages.send({
      from: 'b',
      to: 'a',
      body: 'the reply mentions the spread too',
      reply_to: first.id,
    });
    const hit = t.brain.search
      .search({ query: 'spread', types: ['message'] })
      .hits.find((h) => h.id === reply.id)!;
    expect(hit.snippet).toBe('the reply mentions the [spread] too');
  });

  it('widens from all terms to any term, ranking full matches first', () => {
    const { m, other } = seed();
    const { hits } = t.brain.search.search({ query: 'spread ramen', types: ['message'] });
    expect(hits.map((h) => h.id).sort()).toEqual([m.id, other.id].sort());
    const both = t.brain.messages.send({ from: 'a', to: 'b', body: 'spread the ramen around' });
    expect(t.brain.search.search({ query: 'spread ramen', types: ['message'] }).hits[0]!.id).toBe(
      both.id,
    );
  });

  it('filters by type, time, thread and agent before cutting to the limit', () => {
    const { m, other } = seed();
    for (let i = 0; i < 30; i += 1)
      t.brain.messages.send({ from: 'atlas', to: 'nova', body: `spread noise ${i}` });
    expect(
      t.brain.search
        .search({ query: 'spread', types: ['stm'] })
        .hits.every((h) => h.type === 'stm'),
    ).toBe(true);
    expect(
      t.brain.search.search({ query: 'spread', agent: 'helios', limit: 1 }).hits.map((h) => h.id),
    ).toEqual([m.id]);
    expect(
      t.brain.search
        .search({ query: 'spread', thread: m.thread_id, types: ['message'], limit: 1 })
        .hits.map((h) => h.id),
    ).toEqual([m.id]);
    expect(
      t.brain.search.search({ query: 'pizza', since: other.created_at }).hits.map((h) => h.id),
    ).toEqual([other.id]);
    expect(t.brain.search.search({ query: 'pizza', until: '2026-01-01T00:30:00Z' }).hits).toEqual(
      [],
    );
    expect(
      t.brain.search.search({ query: 'pizza', until: '2026-01-01' }).hits.map((h) => h.id),
    ).toEqual([other.id]);
  });

  it('never fails on hostile query syntax', () => {
    seed();
    for (const q of [
      '"',
      "'",
      'NEAR(',
      'a AND',
      '*',
      '(((',
      'body:x',
      '-x',
      '^',
      '"unbalanced',
      'x OR',
      '🙂',
      'drop table messages;',
      'subject:spread',
      'spread*',
      'NOT gate',
      '{spread gate}',
      '\u202egate\u202c',
      'ga\u200bte',
    ]) {
      const result = t.brain.search.search({ query: q });
      expect(Array.isArray(result.hits)).toBe(true);
    }
    expect(t.brain.search.search({ query: 'subject:spread' }).hits.length).toBeGreaterThan(0);
    expect(t.brain.search.search({ query: '🙂' }).notices).toEqual([
      'the query has no words to search for',
    ]);
  });

  it('rejects empty queries, unknown types and bad dates with the field named', () => {
    expect(() => t.brain.search.search({ query: '   ' })).toThrow(/query: must not be empty/);
    expect(() => t.brain.search.search({ query: 'x', types: ['thread' as never] })).toThrow(
      /types.0: must be one of message, stm, atom/,
    );
    expect(() => t.brain.search.search({ query: 'x', since: 'yesterday' })).toThrow(
      /since: must be an ISO 8601 date/,
    );
    expect(() => t.brain.search.search({ query: 'x'.repeat(2001) })).toThrow(
      /query: must be at most 2000 characters/,
    );
  });
});
