import { connectionOf } from '../../../src/brain.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import {
  hasRankFunction,
  hasStaleRankBuild,
  loadRankExtensionFrom,
  rankExtensionPath,
} from '../../../src/db/rank-extension.js';
import { rankingCheck } from '../../../src/maintenance/checks.js';
import { fixedClock, tempBrain, type TempBrain } from '../../helpers.js';

let t: TempBrain;
let clock: ReturnType<typeof fixedClock>;
beforeEach(async () => {
  clock = fixedClock();
  t = await tempBrain({ clock });
});
afterEach(() => t.cleanup());

const WORDS =
  'lantern harbour violin pottery studio garden painting river market ticket deploy schedule'.split(
    ' ',
  );

/** Messages, STM entries and atoms of varied words and lengths, repeats included. */
function fill(n: number): void {
  t.brain.batch(() => {
    for (let i = 0; i < n; i += 1) {
      const words = Array.from(
        { length: 3 + ((i * 7) % 13) },
        (_, j) => WORDS[(i * 5 + j * j) % WORDS.length],
      );
      const sent = t.brain.messages.send({
        from: i % 3 === 0 ? 'helios' : 'atlas',
        to: 'nova',
        subject: i % 4 === 0 ? `${WORDS[i % WORDS.length]} notes` : undefined,
        body: `${words.join(' ')} number ${i}`,
      });
      if (i % 3 === 0) {
        t.brain.knowledge.remember({
          agent: 'nova',
          content: words.slice(1).join(' '),
          source_message_id: sent.id,
        });
      }
      if (i % 4 === 0) {
        t.brain.knowledge.createAtom({
          agent: 'nova',
          subject: words[0]!,
          action: words.slice(1, 4).join(' '),
          outcome: words.slice(4).join(' ') || 'done',
          source_message_id: sent.id,
        });
      }
      clock.tick(1000);
    }
  });
}

const INDEXES = [
  { table: 'messages_fts', weights: '2.0, 1.0, 1.0, 0.5' },
  { table: 'stm_fts', weights: '1.0' },
  { table: 'atoms_fts', weights: '2.0, 1.0, 1.0, 1.0' },
];

const QUERIES = ['"lantern"', '"violin" "studio"', '"pottery" OR "river" OR "deploy"', '"notes"'];

describe('brain_bm25, the compiled ranking function', () => {
  it('is built by the install and loaded by every connection', async () => {
    expect(hasRankFunction(connectionOf(t.brain))).toBe(true);
    expect(hasRankFunction(connectionOf(await t.reopen({ rankFunction: false })))).toBe(false);
  });

  it("scores every row as FTS5's bm25() does, given each phrase's row count or counting it", () => {
    fill(300);
    const db = connectionOf(t.brain);
    for (const { table, weights } of INDEXES) {
      let compared = 0;
      const count = db.prepare(`SELECT count(*) FROM ${table} WHERE ${table} MATCH ?`).pluck();
      const both = db.prepare(`SELECT rowid, bm25(${table}, ${weights}) AS want,
          brain_bm25(${table}, @df, '${table}_docsize', ${weights}) AS given,
          brain_bm25(${table}, NULL, '${table}_docsize', ${weights}) AS counted,
          brain_bm25(${table}, @df, NULL, ${weights}) AS sized
        FROM ${table} WHERE ${table} MATCH @match`);
      for (const match of QUERIES) {
        const phrases = match.split(/ OR | /);
        const df = Buffer.from(Float64Array.from(phrases, (p) => count.get(p) as number).buffer);
        const rows = both.all({ match, df }) as Array<Record<string, number>>;
        for (const row of rows) {
          expect(row.given).toBeCloseTo(row.want!, 9);
          expect(row.counted).toBeCloseTo(row.want!, 9);
          expect(row.sized).toBeCloseTo(row.want!, 9);
        }
        compared += rows.length;
      }
      expect(compared).toBeGreaterThan(20);
    }
  });

  it('weighs a word by the count it is given, and falls back when the count does not fit', () => {
    fill(60);
    const db = connectionOf(t.brain);
    const score = db
      .prepare(
        `SELECT brain_bm25(messages_fts, ?, 'messages_fts_docsize') FROM messages_fts
         WHERE messages_fts MATCH '"violin"' ORDER BY rowid LIMIT 1`,
      )
      .pluck();
    const given = (n: number[]) => score.get(Buffer.from(Float64Array.from(n).buffer)) as number;
    // A rarer word weighs more: BM25's scores are negative, lower is better.
    expect(given([1])).toBeLessThan(given([30]));
    // One double per phrase or nothing: the wrong size counts as bm25() does.
    expect(given([1, 2])).toBe(score.get(null));
    // A docsize table that is not there: FTS5 gives the lengths.
    const elsewhere = db
      .prepare(
        `SELECT brain_bm25(messages_fts, NULL, 'no_such_table', 2.0, 1.0, 1.0, 0.5) AS a,
                bm25(messages_fts, 2.0, 1.0, 1.0, 0.5) AS b
         FROM messages_fts WHERE messages_fts MATCH '"violin"'`,
      )
      .all() as Array<{ a: number; b: number }>;
    expect(elsewhere.length).toBeGreaterThan(0);
    for (const row of elsewhere) expect(row.a).toBeCloseTo(row.b, 9);
  });

  it('reads row lengths from memory once loaded, rows added since included', () => {
    fill(200);
    const db = connectionOf(t.brain);
    const norms = db.prepare(`SELECT brain_fts_norms(?, 0)`).pluck();
    expect(norms.get('messages_fts_docsize')).toBe(-1);
    for (const { table } of INDEXES) {
      expect(db.prepare(`SELECT brain_fts_norms(?)`).pluck().get(`${table}_docsize`)).toBe(
        db.prepare(`SELECT max(rowid) FROM ${table}_docsize`).pluck().get(),
      );
    }
    fill(100); // after the load: each rank statement reads these first
    for (const { table, weights } of INDEXES) {
      const rows = db
        .prepare(
          `SELECT bm25(${table}, ${weights}) AS want,
             brain_bm25(${table}, NULL, '${table}_docsize', ${weights}) AS got
           FROM ${table} WHERE ${table} MATCH '"lantern" OR "violin" OR "notes"'`,
        )
        .all() as Array<{ want: number; got: number }>;
      expect(rows.length).toBeGreaterThan(20);
      for (const row of rows) expect(row.got).toBeCloseTo(row.want, 9);
      expect(norms.get(`${table}_docsize`)).toBe(
        db.prepare(`SELECT max(rowid) FROM ${table}_docsize`).pluck().get(),
      );
    }
  });

  it('does not keep the length of a row written in a transaction that is rolled back', () => {
    fill(50);
    const db = connectionOf(t.brain);
    const newest = () => db.prepare(`SELECT max(id) FROM messages`).pluck().get() as number;
    const norms = db.prepare(`SELECT brain_fts_norms('messages_fts_docsize', 0)`).pluck();
    db.prepare(`SELECT brain_fts_norms('messages_fts_docsize')`).pluck().get();
    const scores = db.prepare(
      `SELECT rowid, bm25(messages_fts, 2.0, 1.0, 1.0, 0.5) AS want,
         brain_bm25(messages_fts, NULL, 'messages_fts_docsize', 2.0, 1.0, 1.0, 0.5) AS got
       FROM messages_fts WHERE messages_fts MATCH '"lantern"'`,
    );
    const before = newest();
    expect(() =>
      t.brain.batch(() => {
        t.brain.messages.send({ from: 'atlas', to: 'nova', body: 'lantern' });
        // Ranked inside the transaction: the new row's length is read, and scored right.
        const inside = scores.all() as Array<{ rowid: number; want: number; got: number }>;
        expect(inside.map((r) => r.rowid)).toContain(before + 1);
        for (const row of inside) expect(row.got).toBeCloseTo(row.want, 9);
        // Asked to load them now, it reads nothing while the transaction is open.
        expect(db.prepare(`SELECT brain_fts_norms('messages_fts_docsize')`).pluck().get()).toBe(
          before,
        );
        throw new Error('roll back');
      }),
    ).toThrow('roll back');
    // No AUTOINCREMENT: the next message takes the same rowid, with another length.
    t.brain.messages.send({
      from: 'atlas',
      to: 'nova',
      body: 'lantern by the harbour, with many more words than the one rolled back had',
    });
    expect(newest()).toBe(before + 1);
    const after = scores.all() as Array<{ rowid: number; want: number; got: number }>;
    expect(after.map((r) => r.rowid)).toContain(before + 1);
    for (const row of after) expect(row.got).toBeCloseTo(row.want, 9);
    expect(norms.get()).toBe(before + 1);
  });

  it('leaves rowids too large for the array to the blob handle', () => {
    fill(30);
    const db = connectionOf(t.brain);
    // A row far past where brain's ids go (2^25 and up are not kept in memory).
    db.prepare(
      `INSERT INTO stm (id, uid, agent_id, content, importance, created_at)
       SELECT 33554437, 'stm_far', agent_id, 'lantern lantern far away', importance, created_at
       FROM stm LIMIT 1`,
    ).run();
    expect(db.prepare(`SELECT brain_fts_norms('stm_fts_docsize')`).pluck().get()).toBe(33554437);
    const rows = db
      .prepare(
        `SELECT rowid, bm25(stm_fts) AS want, brain_bm25(stm_fts, NULL, 'stm_fts_docsize') AS got
         FROM stm_fts WHERE stm_fts MATCH 'lantern'`,
      )
      .all() as Array<{ rowid: number; want: number; got: number }>;
    expect(rows.map((r) => r.rowid)).toContain(33554437);
    for (const row of rows) expect(row.got).toBeCloseTo(row.want, 9);
  });

  it('loads row lengths by itself once a connection has looked up many', async () => {
    t.brain.batch(() => {
      for (let i = 0; i < 2100; i += 1) {
        t.brain.messages.send({
          from: 'atlas',
          to: 'nova',
          body: `the ${i % 10 === 0 ? 'lantern' : 'rope'} ${' more'.repeat(i % 7)} ${i}`,
        });
      }
    });
    const norms = connectionOf(t.brain)
      .prepare(`SELECT brain_fts_norms('messages_fts_docsize', 0)`)
      .pluck();
    const other = await t.reopen({ rankFunction: false });
    const want = other.search
      .search({ query: 'lantern', types: ['message'] })
      .hits.map((h) => h.id);
    let searches = 0;
    while (norms.get() === -1 && searches < 200) {
      expect(
        t.brain.search.search({ query: 'lantern', types: ['message'] }).hits.map((h) => h.id),
      ).toEqual(want);
      searches += 1;
    }
    // 210 lengths a search in an index of 2,100 rows: loaded by the statement that would take
    // the lookups past 2,000 (the 10th: a 16th of the rows is less), and the order is the same
    // after.
    expect(searches).toBe(10);
    expect(
      t.brain.search.search({ query: 'lantern', types: ['message'] }).hits.map((h) => h.id),
    ).toEqual(want);
  });

  it('finds the same hits in the same order, scored the same, as bm25() on a small brain', async () => {
    fill(400);
    const other = await t.reopen({ rankFunction: false });
    for (const query of ['lantern', 'violin studio', 'pottery river deploy', 'notes helios', 'x']) {
      const mine = t.brain.search.search({ query, limit: 30 }).hits;
      const theirs = other.search.search({ query, limit: 30 }).hits;
      expect(mine.map((h) => [h.type, h.id])).toEqual(theirs.map((h) => [h.type, h.id]));
      mine.forEach((h, i) => expect(h.score).toBeCloseTo(theirs[i]!.score, 9));
    }
  });

  it('ranks every match of a word held by thousands of rows as bm25() does, scores included', async () => {
    t.brain.batch(() => {
      for (let i = 0; i < 2300; i += 1) {
        const pad = ' and more words'.repeat(i % 9);
        t.brain.messages.send({ from: 'atlas', to: 'nova', body: `the lantern${pad} ${i}` });
      }
    });
    const other = await t.reopen({ rankFunction: false });
    const hits = (b: typeof other) =>
      b.search.search({ query: 'lantern', types: ['message'], limit: 50 }).hits;
    const mine = hits(t.brain);
    const theirs = hits(other);
    expect(mine.map((h) => h.id)).toEqual(theirs.map((h) => h.id));
    // Counts are exact: the scores are bm25()'s, not scaled by an estimate.
    mine.forEach((h, i) => expect(h.score).toBeCloseTo(theirs[i]!.score, 9));
  });
});

describe('expired memories', () => {
  it('are left out, however many of them rank above the live ones', async () => {
    const live = ['kept lantern notes from the long harbour walk', 'lantern by the harbour, kept'];
    for (const expired of [3, 150]) {
      t.cleanup();
      clock = fixedClock();
      t = await tempBrain({ clock });
      const kept = live.map((content) => t.brain.knowledge.remember({ agent: 'nova', content }).id);
      t.brain.batch(() => {
        for (let i = 0; i < expired; i += 1) {
          // Shorter and newer: each outranks the live ones.
          t.brain.knowledge.remember({
            agent: 'nova',
            content: `lantern ${i}`,
            expires_at: '2026-01-02T00:00:00Z',
          });
        }
      });
      clock.tick(3 * 86_400_000);
      for (const rankFunction of [true, false]) {
        const brain = await t.reopen({ rankFunction });
        const hits = brain.search.search({ query: 'lantern', types: ['stm'], limit: 5 }).hits;
        expect(hits.map((h) => h.id).sort()).toEqual([...kept].sort());
      }
    }
  });
});

describe('brain doctor', () => {
  it('says when search ranks without the compiled function', async () => {
    const ranking = async (b: typeof t.brain) =>
      (await b.upkeep.doctor()).checks.find((c) => c.name === 'ranking')!;
    expect((await ranking(t.brain)).problems).toEqual([]);
    const without = await ranking(await t.reopen({ rankFunction: false }));
    expect(without.problems).toEqual([expect.stringMatching(/brain_fts\.node was not built/)]);
  });
});

describe("words' counts kept between searches", () => {
  const found = (b: typeof t.brain, query: string) =>
    b.search.search({ query, limit: 30 }).hits.map((h) => [h.id, h.score.toFixed(9)]);

  it('answer as fresh counts do after other connections add rows, few and many', async () => {
    fill(100);
    const queries = ['lantern', 'violin studio', 'pottery river deploy', 'harbour'];
    for (const q of queries) found(t.brain, q); // counted and kept
    const writer = await t.reopen();
    for (const more of [50, 2000]) {
      writer.batch(() => {
        for (let i = 0; i < more; i += 1) {
          writer.messages.send({ from: 'atlas', to: 'nova', body: `lantern and harbour ${i}` });
          if (i % 10 === 0)
            writer.knowledge.remember({ agent: 'nova', content: `violin by the harbour ${i}` });
        }
      });
      const fresh = await t.reopen();
      for (const q of queries) expect(found(t.brain, q)).toEqual(found(fresh, q));
    }
  });

  it('are not kept from inside a transaction that is rolled back', async () => {
    fill(60);
    expect(() =>
      t.brain.batch(() => {
        for (let i = 0; i < 30; i += 1)
          t.brain.messages.send({ from: 'atlas', to: 'nova', body: `lantern ${i}` });
        found(t.brain, 'lantern');
        throw new Error('roll back');
      }),
    ).toThrow('roll back');
    t.brain.messages.send({ from: 'atlas', to: 'nova', body: 'one lantern more' });
    expect(found(t.brain, 'lantern')).toEqual(found(await t.reopen(), 'lantern'));
  });
});

describe('a ranking extension that cannot be loaded', () => {
  it('does not use a build from older sources, whose functions take other arguments, and the doctor says to rebuild', () => {
    // The same sources built as an older version of them would say: a checkout pulled without
    // `npm install` run again keeps the library built before.
    const sqlite = join(
      dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json')),
      'deps',
      'sqlite3',
    );
    const native = resolve(import.meta.dirname, '..', '..', '..', 'src', 'native');
    const sources = readdirSync(native)
      .filter((f) => f.endsWith('.c'))
      .map((f) => join(native, f));
    // SQLite finds the entry point from the file's name.
    mkdirSync(join(t.dir, 'stale'));
    const stale = join(t.dir, 'stale', 'brain_fts.node');
    execFileSync('cc', [
      '-shared',
      '-fPIC',
      '-O0',
      '-DBRAIN_FTS_ABI=1',
      `-I${sqlite}`,
      ...sources,
      '-o',
      stale,
      '-lm',
    ]);
    const db = new BetterSqlite3(':memory:');
    try {
      expect(loadRankExtensionFrom(db, stale)).toBe(false);
      expect(hasRankFunction(db)).toBe(false);
      expect(hasStaleRankBuild(db)).toBe(true);
      expect(rankingCheck.run(db, {} as never)).toEqual([expect.stringContaining('older sources')]);
    } finally {
      db.close();
    }
    const current = new BetterSqlite3(':memory:');
    try {
      expect(loadRankExtensionFrom(current, rankExtensionPath())).toBe(true);
      expect(hasStaleRankBuild(current)).toBe(false);
      expect(rankingCheck.run(current, {} as never)).toEqual([]);
    } finally {
      current.close();
    }
  });

  it('leaves search to bm25() and the doctor to say so, instead of failing to open', () => {
    // Say, a folder copied from another machine: the file is there but is no library here.
    const path = join(t.dir, 'brain_fts.node');
    writeFileSync(path, 'not a library');
    const db = new BetterSqlite3(':memory:');
    try {
      expect(loadRankExtensionFrom(db, path)).toBe(false);
      expect(hasRankFunction(db)).toBe(false);
      expect(loadRankExtensionFrom(db, rankExtensionPath())).toBe(true);
      expect(hasRankFunction(db)).toBe(true);
    } finally {
      db.close();
    }
  });
});
