import { afterEach, describe, expect, it } from 'vitest';
import { mayHaveTime, readTime, readTimeBound } from '../../../src/search/time-words.js';
import { fixedClock, tempBrain, tempDir, type TempBrain } from '../../helpers.js';
import { runCliInProcess } from '../../cli-in-process.js';

const PARIS = 'Europe/Paris';
// Monday 2026-11-30, 11:00 in Paris.
const MONDAY = new Date('2026-11-30T10:00:00Z');

async function read(query: string, now = MONDAY, timeZone = PARIS) {
  return readTime(query, { now, timeZone });
}

describe('time expressions', () => {
  it.each([
    [
      'what did we discuss last Tuesday about fees',
      'what did we discuss about fees',
      '2026-11-23T23:00:00.000Z',
      '2026-11-24T23:00:00.000Z',
      'Tuesday 2026-11-24, 00:00–24:00 Europe/Paris',
    ],
    [
      'fees yesterday afternoon',
      'fees',
      '2026-11-29T11:00:00.000Z',
      '2026-11-29T17:00:00.000Z',
      'Sunday 2026-11-29, 12:00–18:00 Europe/Paris',
    ],
    [
      'fees in March',
      'fees',
      '2026-02-28T23:00:00.000Z',
      '2026-03-31T22:00:00.000Z',
      '2026-03-01 – 2026-03-31 Europe/Paris',
    ],
    [
      'fees two weeks ago',
      'fees',
      '2026-11-15T23:00:00.000Z',
      '2026-11-22T23:00:00.000Z',
      '2026-11-16 – 2026-11-22 Europe/Paris',
    ],
    [
      'fees since the 3rd',
      'fees',
      '2026-11-02T23:00:00.000Z',
      undefined,
      'since Tuesday 2026-11-03 Europe/Paris',
    ],
    [
      'fees between May 1 and May 8',
      'fees',
      '2026-04-30T22:00:00.000Z',
      '2026-05-08T22:00:00.000Z',
      'Friday 2026-05-01 – Friday 2026-05-08 Europe/Paris',
    ],
    [
      'fees this morning',
      'fees',
      '2026-11-30T05:00:00.000Z',
      '2026-11-30T11:00:00.000Z',
      'Monday 2026-11-30, 06:00–12:00 Europe/Paris',
    ],
    // A year is the calendar year, not the day a year ago.
    [
      'fees last year',
      'fees',
      '2024-12-31T23:00:00.000Z',
      '2025-12-31T23:00:00.000Z',
      '2025-01-01 – 2025-12-31 Europe/Paris',
    ],
    [
      'where did she live 4 years ago',
      'where did she live',
      '2021-12-31T23:00:00.000Z',
      '2022-12-31T23:00:00.000Z',
      '2022-01-01 – 2022-12-31 Europe/Paris',
    ],
    [
      'fees in 2022',
      'fees',
      '2021-12-31T23:00:00.000Z',
      '2022-12-31T23:00:00.000Z',
      '2022-01-01 – 2022-12-31 Europe/Paris',
    ],
    [
      'fees since 2021',
      'fees',
      '2020-12-31T23:00:00.000Z',
      undefined,
      'since 2021-01-01 Europe/Paris',
    ],
  ])('%s', async (query, rest, since, until, reading) => {
    const r = await read(query);
    expect(r).toMatchObject({ query: rest, reading });
    expect(r?.since).toBe(since);
    expect(r?.until).toBe(until);
  });

  it('reads "last Tuesday" on a Monday and on a Tuesday as the Tuesday before', async () => {
    expect((await read('last Tuesday'))?.reading).toBe(
      'Tuesday 2026-11-24, 00:00–24:00 Europe/Paris',
    );
    const tuesday = new Date('2026-12-01T10:00:00Z');
    expect((await read('last Tuesday', tuesday))?.reading).toBe(
      'Tuesday 2026-11-24, 00:00–24:00 Europe/Paris',
    );
  });

  it('keeps a daylight-saving day 25 hours long', async () => {
    // Paris leaves summer time on Sunday 2026-10-25 at 03:00.
    const r = await read('last Sunday', new Date('2026-10-27T10:00:00Z'));
    expect(r).toMatchObject({
      since: '2026-10-24T22:00:00.000Z',
      until: '2026-10-25T23:00:00.000Z',
      reading: 'Sunday 2026-10-25, 00:00–24:00 Europe/Paris',
    });
    // The Tuesday after the change starts at UTC+1.
    expect((await read('yesterday', new Date('2026-10-28T10:00:00Z')))?.since).toBe(
      '2026-10-26T23:00:00.000Z',
    );
  });

  it('reads in the zone it is given', async () => {
    const r = await read('yesterday', MONDAY, 'America/New_York');
    expect(r).toMatchObject({
      since: '2026-11-29T05:00:00.000Z',
      until: '2026-11-30T05:00:00.000Z',
      reading: 'Sunday 2026-11-29, 00:00–24:00 America/New_York',
    });
  });

  it('warms the time reader without failing when the brain closes first', async () => {
    t = await tempBrain();
    const warming = t.brain.search.warmTimeWords('Europe/Paris');
    t.brain.close();
    await expect(warming).resolves.toBeUndefined();
  });

  it('leaves words that are not a time as words', async () => {
    expect(mayHaveTime('fees for the escrow')).toBe(false);
    // Words that merely begin like a day or a month do not load the parser.
    expect(mayHaveTime('What did we decide about the wedding, Marta, and the money?')).toBe(false);
    expect(mayHaveTime('the wedding on Saturday')).toBe(true);
    expect(mayHaveTime('fees in Sept')).toBe(true);
    expect(mayHaveTime('two weeks ago')).toBe(true);
    expect(await read('fees for the escrow')).toBeUndefined();
    expect(await read('the march of time')).toBeUndefined();
    expect(await read('may I ask about fees')).toBeUndefined();
    // A number that only looks like a year stays a word.
    expect(await read('the 2022 budget')).toBeUndefined();
  });
});

let t: TempBrain | undefined;
afterEach(() => {
  t?.cleanup();
  t = undefined;
});

describe('search with a time expression', () => {
  it("ranks Tuesday's fee messages before Monday's and Wednesday's, and says which Tuesday", async () => {
    const clock = fixedClock('2026-11-23T09:00:00Z'); // Monday
    t = await tempBrain({ clock });
    const day = 86_400_000;
    const sent: Record<string, string> = {};
    for (const name of ['monday', 'tuesday', 'wednesday']) {
      sent[name] = t.brain.messages.send({
        from: 'a',
        to: 'b',
        body: `the fees for the escrow, ${name}`,
      }).id;
      clock.tick(day);
    }
    clock.tick(4 * day); // Monday 2026-11-30
    const found = await t.brain.search.searchHybrid(
      { query: 'what did we discuss last Tuesday about fees' },
      { timeWords: { timeZone: PARIS } },
    );
    // The period is preferred, not required: the others follow (what was said of Tuesday later
    // is not lost).
    expect(found.hits[0]!.id).toBe(sent.tuesday);
    expect(found.hits[0]!.found_by.time?.rank).toBe(1);
    expect(new Set(found.hits.map((h) => h.id))).toEqual(new Set(Object.values(sent)));
    // Wednesday is in the days after Tuesday that still tell of it; Monday is before.
    expect(found.hits.map((h) => h.id)).toEqual([sent.tuesday, sent.wednesday, sent.monday]);
    expect(found.hits[2]!.found_by.time).toBeUndefined();
    expect(found.retrievers).toEqual(['fts', 'time']);
    expect(found.notices[0]).toBe(
      'read "last Tuesday" as Tuesday 2026-11-24, 00:00–24:00 Europe/Paris: what was said then or in the 7 days after ranks first',
    );
    // Explicit bounds win over the words, which then stay words.
    const explicit = await t.brain.search.searchHybrid(
      { query: 'fees last Tuesday', since: '2026-11-25' },
      { timeWords: { timeZone: PARIS } },
    );
    expect(explicit.time).toBeUndefined();
  });

  it("ranks the period's list exactly: the filtered exhaustive ranking, fused with the whole one", async () => {
    const clock = fixedClock('2026-11-01T09:00:00Z');
    t = await tempBrain({ clock });
    const words = ['fees', 'escrow', 'invoice', 'refund', 'ledger'];
    for (let i = 0; i < 180; i++) {
      const body = Array.from({ length: 1 + (i % 7) }, (_, j) => words[(i * 3 + j) % 5]).join(' ');
      t.brain.messages.send({ from: 'a', to: 'b', body: `${body} ${i % 2 ? 'fees' : ''}` });
      clock.tick(3 * 3_600_000);
    }
    clock.tick(5 * 86_400_000);
    const timed = await t.brain.search.searchHybrid(
      { query: 'fees escrow since the 10th', limit: 200, types: ['message'] },
      { timeWords: { timeZone: PARIS } },
    );
    const since = timed.time!.since!;
    const all = t.brain.search.search({ query: 'fees escrow', limit: 200, types: ['message'] });
    // The period's list is the whole ranking less what falls before it.
    const inPeriod = timed.hits
      .filter((h) => h.found_by.time)
      .sort((a, b) => a.found_by.time!.rank - b.found_by.time!.rank);
    const exhaustive = all.hits.filter((h) => h.time >= since);
    expect(inPeriod.map((h) => h.id)).toEqual(exhaustive.map((h) => h.id));
    expect(inPeriod.map((h) => h.found_by.time!.rank)).toEqual(exhaustive.map((_, i) => i + 1));
    // The fused order is reciprocal rank over both lists (fusion.ts), each part as its list gives.
    const score = (h: (typeof timed.hits)[number]) =>
      (h.found_by.fts ? 1 / (10 + h.found_by.fts.rank) : 0) +
      (h.found_by.time ? 1 / (10 + h.found_by.time.rank) : 0);
    const fused = timed.hits.map(score);
    expect(fused).toEqual([...fused].sort((a, b) => b - a));
    // Nothing is left out: every message holding a word is there.
    expect(new Set(timed.hits.map((h) => h.id))).toEqual(new Set(all.hits.map((h) => h.id)));
    expect(all.hits.length).toBeGreaterThan(inPeriod.length);
  });
});

describe('since and until as typed', () => {
  const when = { now: MONDAY, timeZone: PARIS };
  it('reads an expression as the start or the end of what it names, and passes ISO dates', async () => {
    expect(await readTimeBound('since', 'last Tuesday', when)).toBe('2026-11-23T23:00:00.000Z');
    expect(await readTimeBound('until', 'yesterday', when)).toBe('2026-11-29T23:00:00.000Z');
    expect(await readTimeBound('until', '2026-11-03', when)).toBe('2026-11-03');
  });

  it('names the field when it is neither', async () => {
    await expect(readTimeBound('until', 'whenever', when)).rejects.toThrow(
      /^until: must be an ISO 8601 date or time, or a time such as/,
    );
    await expect(readTimeBound('since', 'fees last Tuesday', when)).rejects.toThrow(/^since: /);
  });

  it('brain recent --since/--until lists that window; bad input exits 2 naming the flag', async () => {
    const d = tempDir();
    try {
      const env = { BRAIN_DB: `${d.dir}/brain.db`, BRAIN_TIME_ZONE: PARIS };
      const send = await runCliInProcess(
        ['--agent', 'a', 'send', '--to', 'b', '--body', 'now'],
        env,
      );
      expect(send.code).toBe(0);
      const within = await runCliInProcess(['recent', '--since', 'yesterday', '--json'], env);
      expect(within.code).toBe(0);
      expect(JSON.parse(within.stdout).items).toHaveLength(1);
      const before = await runCliInProcess(['recent', '--until', '2 weeks ago', '--json'], env);
      expect(JSON.parse(before.stdout).items).toHaveLength(0);
      const bad = await runCliInProcess(['recent', '--since', 'whenever'], env);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/since: must be an ISO 8601 date or time/);
      expect(bad.stderr).not.toMatch(/\n\s+at /);
    } finally {
      d.cleanup();
    }
  });
});
