import { afterEach, describe, expect, it } from 'vitest';
import { createOfflineExtractor, extractOffline } from '../../../src/knowledge/extract/offline.js';
import { connectionOf } from '../../../src/brain.js';
import { readTimeBound } from '../../../src/search/time-words.js';
import { wordEmbedder } from '../../embedders.js';
import { fixedClock, tempBrain, type TempBrain } from '../../helpers.js';

let t: TempBrain | undefined;
afterEach(() => t?.cleanup());

const DAY = 86_400_000;

describe('event time of knowledge', () => {
  it('a time filter matches what was learned then or what happened then, and says which', async () => {
    const clock = fixedClock('2026-11-01T09:00:00Z');
    t = await tempBrain({ clock });
    const k = t.brain.knowledge;
    // Learned on 1 November about a launch on 20 November; learned on 26 November, no event time.
    const launch = k.remember({
      agent: 'a',
      content: 'the fees launch is set',
      occurred_at: '2026-11-20',
    });
    const atom = k.createAtom({
      agent: 'a',
      subject: 'fees launch',
      action: 'ship',
      outcome: 'live',
      occurred_at: '2026-11-20T15:00:00Z',
    });
    clock.tick(25 * DAY);
    const later = k.remember({ agent: 'a', content: 'fees launch went well' });
    expect(launch.occurred_at).toBe('2026-11-20T00:00:00.000Z');

    const words = wordEmbedder(['fees', 'launch']);
    await t.brain.embed.embedQueued(words);
    for (const mode of ['fts', 'vector'] as const) {
      const r = await t.brain.search.searchHybrid(
        { query: 'fees launch', types: ['stm', 'atom'], since: '2026-11-20', until: '2026-11-21' },
        { embedder: words, mode },
      );
      const found = Object.fromEntries(r.hits.map((h) => [h.id, h.matched_time]));
      expect(found, mode).toEqual({ [launch.id]: 'occurred', [atom.id]: 'occurred' });
      const recorded = await t.brain.search.searchHybrid(
        { query: 'fees launch', types: ['stm'], since: '2026-11-25' },
        { embedder: words, mode },
      );
      expect(
        recorded.hits.map((h) => [h.id, h.matched_time]),
        mode,
      ).toEqual([[later.id, 'recorded']]);
    }

    const recent = t.brain.search.recent({ since: '2026-11-20', until: '2026-11-21' });
    expect(recent.map((i) => [i.id, 'matched_time' in i && i.matched_time])).toEqual([
      [launch.id, 'occurred'],
      [atom.id, 'occurred'],
    ]);
  });

  it('keeps the top k exact when event time fills the window: the filtered exhaustive ranking', async () => {
    const clock = fixedClock('2026-10-01T09:00:00Z');
    t = await tempBrain({ clock });
    const words = ['fees', 'escrow', 'invoice', 'refund', 'ledger'];
    for (let i = 0; i < 120; i++) {
      const content = Array.from({ length: 1 + (i % 5) }, (_, j) => words[(i + j) % 5]).join(' ');
      t.brain.knowledge.remember({
        agent: 'a',
        content: `${content} fees`,
        ...(i % 3 === 0
          ? { occurred_at: new Date(Date.UTC(2026, 11, 1 + (i % 10))).toISOString() }
          : {}),
      });
      clock.tick(6 * 3_600_000);
    }
    const since = '2026-12-03';
    const until = '2026-12-06';
    const filtered = t.brain.search.search({
      query: 'fees escrow',
      limit: 5,
      types: ['stm'],
      since,
      until,
    });
    const all = t.brain.search.search({ query: 'fees escrow', limit: 200, types: ['stm'] });
    const inWindow = (at: string | undefined, time: string) => {
      const when = (s: string) => Date.parse(s);
      const inside = (x: string) => when(x) >= when(since) && when(x) < when(until);
      return inside(time) || (at !== undefined && inside(at));
    };
    const exhaustive = all.hits.filter((h) => inWindow(h.occurred_at, h.time)).slice(0, 5);
    expect(filtered.hits.map((h) => h.id)).toEqual(exhaustive.map((h) => h.id));
    expect(filtered.hits).toHaveLength(5);
    expect(filtered.hits.some((h) => h.matched_time === 'occurred')).toBe(true);
  });

  it('the offline extractor stores the day it pins as the event time', async () => {
    // Tuesday 24 November 2026: "on Tuesday" is the coming one, 1 December.
    const entries = extractOffline({
      id: 'syn_000000000001',
      thread_id: 'thr_x',
      sender: 'ana',
      recipients: ['bo'],
      subject: 'plans',
      body: 'We decided to launch on Tuesday.',
      created_at: '2026-11-24T10:00:00.000Z',
    });
    expect(entries[0]!.content).toMatch(/on Tuesday \(1 December 2026\)/);
    expect(entries[0]!.occurred_at).toBe('2026-12-01T00:00:00.000Z');
    const monthly = extractOffline({
      id: 'syn_000000000002',
      thread_id: 'thr_x',
      sender: 'ana',
      recipients: ['bo'],
      subject: 'plans',
      body: 'We decided to launch next month.',
      created_at: '2026-11-24T10:00:00.000Z',
    });
    expect(monthly[0]!.occurred_at).toBeUndefined();

    t = await tempBrain({ clock: fixedClock('2026-11-24T10:00:00Z') });
    t.brain.messages.send({ from: 'ana', to: 'bo', body: 'We decided to launch on Tuesday.' });
    await t.brain.knowledge.extract(createOfflineExtractor());
    const stored = t.brain.knowledge.insights({ since: '2026-12-01' });
    expect(stored.map((i) => [i.occurred_at, i.matched_time])).toEqual([
      ['2026-12-01T00:00:00.000Z', 'occurred'],
    ]);
  });

  it('refuses an event time that is no time, naming the field, and stores nothing', async () => {
    t = await tempBrain();
    expect(() =>
      t!.brain.knowledge.remember({ agent: 'a', content: 'x', occurred_at: 'soon' }),
    ).toThrow(/occurred_at: must be an ISO 8601 date/);
    expect(t.brain.knowledge.listStm()).toEqual([]);
  });
});

describe('archived threads', () => {
  it('are searchable unless left out, and the top k without them is the filtered exhaustive ranking', async () => {
    const clock = fixedClock('2026-11-01T09:00:00Z');
    t = await tempBrain({ clock });
    const words = ['fees', 'escrow', 'invoice', 'refund', 'ledger'];
    const threads: string[] = [];
    for (let i = 0; i < 150; i++) {
      const body = Array.from({ length: 1 + (i % 7) }, (_, j) => words[(i * 3 + j) % 5]).join(' ');
      const m = t.brain.messages.send({
        from: 'a',
        to: 'b',
        body: `${body} fees`,
        ...(i < 10 ? { subject: `t${i}` } : { thread: threads[i % 10]! }),
      });
      if (i < 10) threads.push(m.thread_id);
      clock.tick(3_600_000);
    }
    const archived = new Set(threads.filter((_, i) => i % 3 === 0));
    for (const id of archived) t.brain.messages.setThreadStatus(id, 'archived');

    const query = { query: 'fees escrow', limit: 5, types: ['message' as const] };
    const all = t.brain.search.search({ ...query, limit: 200 });
    expect(all.hits.some((h) => archived.has(h.thread_id!))).toBe(true);
    const active = t.brain.search.search({ ...query, exclude_archived: true });
    const exhaustive = all.hits.filter((h) => !archived.has(h.thread_id!)).slice(0, 5);
    expect(active.hits.map((h) => h.id)).toEqual(exhaustive.map((h) => h.id));
    expect(active.hits).toHaveLength(5);

    const vectors = wordEmbedder(words);
    await t.brain.embed.embedQueued(vectors);
    const byMeaning = await t.brain.search.searchHybrid(
      { ...query, limit: 200, exclude_archived: true },
      { embedder: vectors, mode: 'vector' },
    );
    expect(byMeaning.hits.length).toBeGreaterThan(0);
    expect(byMeaning.hits.some((h) => archived.has(h.thread_id!))).toBe(false);
    const everything = await t.brain.search.searchHybrid(
      { ...query, limit: 200 },
      { embedder: vectors, mode: 'vector' },
    );
    expect(byMeaning.hits.map((h) => h.id)).toEqual(
      everything.hits.filter((h) => !archived.has(h.thread_id!)).map((h) => h.id),
    );
  });
});

describe('an event time as said', () => {
  it('reads what is to come as to come, in the zone given, and refuses what is no time', async () => {
    // Friday 27 November 2026, 07:00 in Paris.
    const when = { now: new Date('2026-11-27T06:00:00Z'), timeZone: 'Europe/Paris' };
    expect(await readTimeBound('occurred_at', 'next Friday', when)).toBe(
      '2026-12-03T23:00:00.000Z',
    );
    expect(await readTimeBound('occurred_at', 'yesterday', when)).toBe('2026-11-25T23:00:00.000Z');
    expect(await readTimeBound('occurred_at', '2026-12-04', when)).toBe('2026-12-04');
    await expect(readTimeBound('occurred_at', 'whenever', when)).rejects.toThrow(/^occurred_at: /);
  });
});

describe('archived threads, by meaning past the exact scan', () => {
  it('leaves archived threads out inside the k-NN query, so their vectors crowd out none of the rest', async () => {
    t = await tempBrain({ clock: fixedClock('2026-11-01T09:00:00Z') });
    // 4,200 vectors of messages (past the 4,096 scored exactly): the 4,100 closest to the query in
    // one thread, archived.
    const brain = t.brain;
    const old = brain.messages.send({ from: 'a', to: 'b', subject: 'old', body: 'gate' });
    const kept: string[] = [];
    // One transaction: the sends' own become savepoints, and the test spends no time on commits.
    connectionOf(brain).transaction(() => {
      for (let i = 1; i < 4100; i++)
        brain.messages.send({ from: 'a', to: 'b', thread: old.thread_id, body: 'gate' });
      for (let i = 0; i < 100; i++)
        kept.push(
          brain.messages.send({ from: 'a', to: 'b', subject: 'new', body: `gate other ${i}` }).id,
        );
    })();
    t.brain.messages.setThreadStatus(old.thread_id, 'archived');
    const words = wordEmbedder(['gate', 'other']);
    await t.brain.embed.embedQueued(words);
    const search = (exclude_archived: boolean) =>
      t!.brain.search.searchHybrid(
        { query: 'gate', types: ['message'], limit: 5, exclude_archived },
        { embedder: words, mode: 'vector' },
      );
    expect((await search(false)).hits.every((h) => h.thread_id === old.thread_id)).toBe(true);
    const active = await search(true);
    expect(active.hits).toHaveLength(5);
    expect(active.hits.every((h) => kept.includes(h.id))).toBe(true);
  });
});
