import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { messageKey } from '../../../src/ids.js';
import { NEIGHBOURS_SQL, RANK_SQL, RANK_WINDOW } from '../../../src/search/fts.js';
import { fixedClock, tempBrain, type TempBrain } from '../../helpers.js';

let t: TempBrain;
let clock: ReturnType<typeof fixedClock>;
beforeEach(() => {
  clock = fixedClock();
  t = tempBrain({ clock });
});
afterEach(() => t.cleanup());

const NO_FILTERS = {
  since: null,
  until: null,
  since_ms: null,
  until_ms: null,
  thread: null,
  agent: null,
  now: '',
};

function plan(sql: string, params: Record<string, unknown>): string[] {
  return t.brain.db
    .prepare(`EXPLAIN QUERY PLAN ${sql}`)
    .all(params)
    .map((r) => (r as { detail: string }).detail);
}

describe('full-text ranking', () => {
  it('ranks only the newest matches of a word that fills the window, unless a filter narrows it', () => {
    const old = t.brain.send({
      from: 'helios',
      to: 'nova',
      subject: 'lantern lantern',
      body: 'lantern lantern lantern lantern',
    });
    clock.tick(60_000);
    t.brain.batch(() => {
      for (let i = 0; i < RANK_WINDOW; i += 1) {
        t.brain.send({
          from: 'atlas',
          to: 'nova',
          body: `a lantern and a long line of other words ${i}`,
        });
      }
    });
    const ids = (input: Parameters<typeof t.brain.search>[0]) =>
      t.brain.search(input).hits.map((h) => h.id);
    // The old message matches best but lies past the window of the newest matches.
    expect(ids({ query: 'lantern', types: ['message'], limit: 200 })).not.toContain(old.id);
    // Filtered, the window is of the matches that pass: it is found, and first.
    expect(ids({ query: 'lantern', types: ['message'], agent: 'helios' })).toEqual([old.id]);
    expect(ids({ query: 'lantern', types: ['message'], thread: old.thread_id })[0]).toBe(old.id);
  });

  it('sorts only the window: the index is walked newest first and stops at its end', () => {
    for (const variant of ['bare', 'filtered'] as const) {
      const steps = plan(RANK_SQL.message[variant], { ...NO_FILTERS, match: '"x"', k: 5 });
      // One sort, of the window's rows (after the subquery), none inside it.
      expect(steps.filter((s) => s.includes('TEMP B-TREE'))).toHaveLength(1);
      expect(steps.at(-1)).toContain('USE TEMP B-TREE FOR ORDER BY');
      expect(steps.some((s) => /SCAN (f|messages_fts) VIRTUAL TABLE/.test(s))).toBe(true);
      if (variant === 'filtered') {
        expect(steps).toContain('SEARCH x USING INTEGER PRIMARY KEY (rowid=?)');
      }
    }
  });

  it('finds the neighbours of all hits in one statement, through the thread index', () => {
    const steps = plan(NEIGHBOURS_SQL, { ids: '[1, 2]' });
    expect(steps).toContain('SEARCH m USING INTEGER PRIMARY KEY (rowid=?)');
    expect(steps.filter((s) => s.includes('USING COVERING INDEX messages_by_thread'))).toHaveLength(
      2,
    );
  });
});

describe('snippets', () => {
  it('gives each message the snippet the main index gives', () => {
    const bodies = [
      'We danced at the café until the dancers left, a long night of dance after dance',
      'nothing about it here',
      'Naïve "quotes", punctuation—and a DANCE: (studio) opening!',
      'no match at all',
    ];
    const subjects = ['Dancing', 'dance studio', undefined, undefined];
    const sent = bodies.map((body, i) => ({
      body,
      ...t.brain.send({ from: 'helios', to: 'nova', subject: subjects[i], body }),
    }));
    const main = t.brain.db.prepare(
      `SELECT snippet(messages_fts, 1, '[', ']', '…', 16) AS s FROM messages_fts WHERE messages_fts MATCH ? AND rowid = ?`,
    );
    const rowid = t.brain.db.prepare(`SELECT id FROM messages WHERE uid = ?`).pluck();
    for (const query of ['dance studio', 'cafe naive', 'dancing', 'quotes punctuation opening']) {
      const { hits } = t.brain.search({ query, types: ['message'] });
      expect(hits.length).toBeGreaterThan(0);
      const any = query
        .split(' ')
        .map((w) => `"${w}"`)
        .join(' OR ');
      for (const hit of hits) {
        const m = sent.find((s) => s.id === hit.id)!;
        const expected = (
          main.get(any, BigInt(rowid.get(messageKey(m.id)) as number)) as { s: string } | undefined
        )?.s;
        expect(hit.snippet).toBe(expected ?? m.body);
      }
    }
  });

  it('gives the same snippets where the connection may not write, not even temporary tables', () => {
    t.brain.send({ from: 'helios', to: 'nova', body: 'we went dancing at the old studio' });
    const before = t.brain.search({ query: 'dance studio' }).hits.map((h) => h.snippet);
    expect(before).toEqual(['we went [dancing] at the old [studio]']);
    const other = t.reopen();
    other.db.pragma('query_only = 1');
    expect(other.search({ query: 'dance studio' }).hits.map((h) => h.snippet)).toEqual(before);
  });
});
