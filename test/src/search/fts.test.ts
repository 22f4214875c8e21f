import { connectionOf } from '../../../src/brain.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { messageKey } from '../../../src/ids.js';
import { indexText } from '../../../src/db/index-text.js';
import { NEIGHBOURS_SQL, STOP_WORDS_SQL } from '../../../src/search/fts.js';
import { RANK_SQL, THREAD_ROWS_SQL, UNEXPIRED_SQL } from '../../../src/search/rank.js';
import { fixedClock, tempBrain, type TempBrain } from '../../helpers.js';

let t: TempBrain;
let clock: ReturnType<typeof fixedClock>;
beforeEach(async () => {
  clock = fixedClock();
  t = await tempBrain({ clock });
});
afterEach(() => t.cleanup());

const NO_FILTERS = {
  since: null,
  until: null,
  since_ms: null,
  until_ms: null,
  thread: null,
  exclude_thread: null,
  agent: null,
  within_threads: null,
  exclude_archived: null,
  now_ms: 0,
};

function plan(sql: string, ...params: Array<Record<string, unknown> | number>): string[] {
  return connectionOf(t.brain)
    .prepare(`EXPLAIN QUERY PLAN ${sql}`)
    .all(...params)
    .map((r) => (r as { detail: string }).detail);
}

describe('full-text ranking', () => {
  it('ranks every match: an old message that matches best comes first among 2,000 newer ones', () => {
    const old = t.brain.messages.send({
      from: 'helios',
      to: 'nova',
      subject: 'lantern lantern',
      body: 'lantern lantern lantern lantern',
    });
    clock.tick(60_000);
    t.brain.batch(() => {
      for (let i = 0; i < 2000; i += 1) {
        t.brain.messages.send({
          from: 'atlas',
          to: 'nova',
          body: `a lantern and a long line of other words ${i}`,
        });
      }
    });
    const ids = (input: Parameters<typeof t.brain.search.search>[0]) =>
      t.brain.search.search(input).hits.map((h) => h.id);
    // The old message matches best, however many newer messages hold the word.
    expect(ids({ query: 'lantern', types: ['message'], limit: 5 })[0]).toBe(old.id);
    expect(ids({ query: 'lantern other', types: ['message'], limit: 5 })[0]).toBe(old.id);
    expect(ids({ query: 'lantern', types: ['message'], agent: 'helios' })).toEqual([old.id]);
    expect(ids({ query: 'lantern', types: ['message'], thread: old.thread_id })[0]).toBe(old.id);
  });

  it('leaves a thread out exactly, whether it holds few or most of the best matches', async () => {
    const here = t.brain.messages.send({
      from: 'ann',
      to: 'assistant',
      subject: 'here',
      body: 'kiln',
    });
    const away = t.brain.messages.send({ from: 'ann', to: 'bob', subject: 'away', body: 'kiln' });
    t.brain.batch(() => {
      // Short messages in the thread left out rank first, more of them than the words retriever
      // ranks at once; longer ones in the only other thread follow.
      for (let i = 0; i < 250; i++)
        t.brain.messages.send({
          from: 'ann',
          to: 'assistant',
          thread: here.thread_id,
          body: `kiln ${i}`,
        });
      for (let i = 0; i < 60; i++)
        t.brain.messages.send({
          from: 'ann',
          to: 'bob',
          thread: away.thread_id,
          body: `the kiln and a longer line of other words ${i}`,
        });
    });
    // The compiled top k (the thread's rows never ranked); inside a write transaction, where the
    // lists are not read, brain_bm25 statements (the rows dropped after); bm25() (the same).
    const fallback = await t.reopen({ rankFunction: false });
    const direct = (search: () => string[]) => search();
    const inTransaction = (search: () => string[]) => t.brain.batch(search);
    for (const [brain, run] of [
      [t.brain, direct],
      [t.brain, inTransaction],
      [fallback, direct],
    ] as const) {
      const ids = (input: Parameters<typeof t.brain.search.search>[0]) =>
        run(() => brain.search.search({ types: ['message'], ...input }).hits.map((h) => h.id));
      for (const [query, limit] of [
        ['kiln', 5],
        ['kiln', 40],
        ['kiln longer', 10],
        ['kiln 7', 3],
        ['kiln 249', 3],
      ] as const) {
        // Leaving one thread out of two is keeping the other (the thread filter's statement).
        const want = ids({ query, limit, thread: away.thread_id });
        expect(want.length).toBeGreaterThan(0);
        expect(ids({ query, limit, exclude_thread: here.thread_id }), `${query} ${limit}`).toEqual(
          want,
        );
      }
    }
  });

  it('keeps leaving a thread out as it grows between searches, and after a deletion', () => {
    const here = t.brain.messages.send({
      from: 'ann',
      to: 'assistant',
      subject: 'here',
      body: 'quern',
    });
    const away = t.brain.messages.send({
      from: 'ann',
      to: 'bob',
      subject: 'away',
      body: 'quern stone',
    });
    const ids = () =>
      t.brain.search
        .search({ query: 'quern', types: ['message'], limit: 10, exclude_thread: here.thread_id })
        .hits.map((h) => h.id);
    expect(ids()).toEqual([away.id]);
    // Shorter, so better matches than the one outside: each must still be left out.
    const added = t.brain.batch(() =>
      Array.from(
        { length: 149 },
        () =>
          t.brain.messages.send({
            from: 'ann',
            to: 'assistant',
            thread: here.thread_id,
            body: 'quern',
          }).id,
      ),
    );
    expect(ids()).toEqual([away.id]);
    // By hand (the library never deletes a message): the thread's messages deleted and as many
    // new ones written, more than the search ranks at once.
    const db = connectionOf(t.brain);
    const rows = db
      .prepare(
        `SELECT id FROM messages WHERE thread_id = (SELECT thread_id FROM messages WHERE subject = 'here')`,
      )
      .pluck()
      .all() as number[];
    db.transaction(() => {
      for (const id of rows) {
        db.prepare(`DELETE FROM deliveries WHERE message_id = ?`).run(id);
        db.prepare(`DELETE FROM messages WHERE id = ?`).run(id);
      }
    })();
    t.brain.batch(() => {
      for (const _ of rows)
        t.brain.messages.send({
          from: 'ann',
          to: 'assistant',
          thread: here.thread_id,
          body: 'quern',
        });
    });
    expect(ids()).toEqual([away.id]);
    expect(added).toHaveLength(149);
  });

  it('scores the matches in one walk of the index and sorts once', () => {
    for (const [scorer, variant] of [
      ['bm25', 'bare'],
      ['bm25', 'filtered'],
      ['brain_bm25', 'bare'],
      ['brain_bm25', 'filtered'],
    ] as const) {
      const steps = plan(RANK_SQL[scorer].message[variant], {
        ...NO_FILTERS,
        match: '"x"',
        k: 5,
        df: Buffer.alloc(8),
      });
      // One sort, bounded by the LIMIT, after the walk of the index.
      expect(steps.filter((s) => s.includes('TEMP B-TREE'))).toHaveLength(1);
      expect(steps.at(-1)).toContain('USE TEMP B-TREE FOR ORDER BY');
      expect(steps.some((s) => /SCAN (f|messages_fts) VIRTUAL TABLE/.test(s))).toBe(true);
      if (variant === 'filtered') {
        expect(steps).toContain('SEARCH x USING INTEGER PRIMARY KEY (rowid=?)');
      }
    }
  });

  it('checks the expiry of the best STM entries by their ids, not by scanning STM', () => {
    const steps = plan(UNEXPIRED_SQL, { ids: '[1, 2]', now_ms: 0 });
    expect(steps).toContain('SEARCH x USING INTEGER PRIMARY KEY (rowid=?)');
    expect(steps.some((s) => s.startsWith('SCAN x'))).toBe(false);
  });

  it("reads a thread's rows from the thread index alone", () => {
    const steps = plan(THREAD_ROWS_SQL, 1, 0);
    expect(steps).toEqual([
      'SEARCH messages USING COVERING INDEX messages_by_thread (thread_id=?)',
    ]);
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
  it('gives each message the snippet an index of its full text gives', async () => {
    const bodies = [
      'We danced at the café until the dancers left, a long night of dance after dance',
      'nothing about it here',
      'Naïve "quotes", punctuation—and a DANCE: (studio) opening!',
      'no match at all',
    ];
    const subjects = ['Dancing', 'dance studio', undefined, undefined];
    const sent = bodies.map((body, i) => ({
      body,
      ...t.brain.messages.send({ from: 'helios', to: 'nova', subject: subjects[i], body }),
    }));
    // The message index holds no stop words (migration 0007); one over the full text does.
    connectionOf(t.brain)
      .exec(`CREATE VIRTUAL TABLE full_text USING fts5(subject, body, sender, date,
      content = 'messages_search', content_rowid = 'id',
      tokenize = 'porter unicode61 remove_diacritics 2');
      INSERT INTO full_text (full_text) VALUES ('rebuild');`);
    const main = connectionOf(t.brain).prepare(
      `SELECT snippet(full_text, 1, '[', ']', '…', 16) AS s FROM full_text WHERE full_text MATCH ? AND rowid = ?`,
    );
    const rowid = connectionOf(t.brain).prepare(`SELECT id FROM messages WHERE uid = ?`).pluck();
    // With the compiled extension (brain_snippet) and without it (a temporary index).
    const brains = [t.brain, await t.reopen({ rankFunction: false })];
    for (const query of ['dance studio', 'cafe naive', 'dancing', 'quotes punctuation opening']) {
      for (const brain of brains) {
        const { hits } = brain.search.search({ query, types: ['message'] });
        expect(hits.length).toBeGreaterThan(0);
        const any = query
          .split(' ')
          .map((w) => `"${w}"`)
          .join(' OR ');
        for (const hit of hits) {
          const m = sent.find((s) => s.id === hit.id)!;
          const expected = (
            main.get(any, BigInt(rowid.get(messageKey(m.id)) as number)) as
              { s: string } | undefined
          )?.s;
          expect(hit.snippet).toBe(expected ?? m.body);
        }
      }
    }
  });

  it('gives STM entries and atoms the snippets their own index gives, written or read-only', async () => {
    const texts = [
      'We danced at the café until the dancers left, a long night of dance after dance',
      'Naïve "quotes", punctuation—and a DANCE: (studio) opening!',
      'nothing here',
    ];
    for (const content of texts) t.brain.knowledge.remember({ agent: 'nova', content });
    for (const [i, content] of texts.entries()) {
      t.brain.knowledge.createAtom({
        agent: 'nova',
        subject: i === 1 ? 'studio' : 'evening',
        action: content,
        outcome: i === 0 ? 'a dance studio opened' : 'ok',
      });
    }
    const main = {
      stm: connectionOf(t.brain).prepare(
        `SELECT snippet(stm_fts, -1, '[', ']', '…', 16) FROM stm_fts WHERE stm_fts MATCH ? AND rowid = ?`,
      ),
      atom: connectionOf(t.brain).prepare(
        `SELECT snippet(atoms_fts, -1, '[', ']', '…', 16) FROM atoms_fts WHERE atoms_fts MATCH ? AND rowid = ?`,
      ),
    };
    const rowid = {
      stm: connectionOf(t.brain).prepare(`SELECT id FROM stm WHERE uid = ?`).pluck(),
      atom: connectionOf(t.brain).prepare(`SELECT id FROM atoms WHERE uid = ?`).pluck(),
    };
    // Read-only with the compiled extension; without it, from a temporary index, or from the
    // main index where the connection may not write even that.
    const readOnly = await t.reopen();
    connectionOf(readOnly).pragma('query_only = 1');
    const uncompiled = await t.reopen({ rankFunction: false });
    const uncompiledReadOnly = await t.reopen({ rankFunction: false });
    connectionOf(uncompiledReadOnly).pragma('query_only = 1');
    for (const query of ['dance studio', 'cafe naive', 'quotes punctuation opening']) {
      const any = query
        .split(' ')
        .map((w) => `"${w}"`)
        .join(' OR ');
      for (const brain of [t.brain, readOnly, uncompiled, uncompiledReadOnly]) {
        const { hits } = brain.search.search({ query, types: ['stm', 'atom'] });
        expect(hits.length).toBeGreaterThan(1);
        for (const hit of hits) {
          const type = hit.type as 'stm' | 'atom';
          const id = BigInt(rowid[type].get(hit.id) as number);
          expect(hit.snippet).toBe(main[type].pluck().get(any, id));
        }
      }
    }
  });

  it('marks snippets on a read-only connection; without the extension, gives the start of the text where the connection may not write, not even temporary tables', async () => {
    t.brain.messages.send({
      from: 'helios',
      to: 'nova',
      body: 'we went dancing at the old studio',
    });
    const marked = ['we went [dancing] at the old [studio]'];
    expect(t.brain.search.search({ query: 'dance studio' }).hits.map((h) => h.snippet)).toEqual(
      marked,
    );
    const readOnly = await t.reopen();
    connectionOf(readOnly).pragma('query_only = 1');
    expect(readOnly.search.search({ query: 'dance studio' }).hits.map((h) => h.snippet)).toEqual(
      marked,
    );
    const uncompiled = await t.reopen({ rankFunction: false });
    connectionOf(uncompiled).pragma('query_only = 1');
    expect(uncompiled.search.search({ query: 'dance studio' }).hits.map((h) => h.snippet)).toEqual([
      'we went dancing at the old studio',
    ]);
  });
});

describe('a message of one word said 200,000 times', () => {
  it('is found, and its snippet made, without holding the search (with the extension and without)', async () => {
    const sent = t.brain.messages.send({
      from: 'helios',
      to: 'nova',
      body: `${'tent '.repeat(200_000)}the lake.`,
    });
    const found = t.brain.search.search({ query: 'tent lake' });
    expect(found.hits[0]!.id).toBe(sent.id);
    expect(found.hits[0]!.snippet).toMatch(/^….*\[tent\] the \[lake\]\.$/);
    // Without it the temporary index holds the text's first SNIPPET_TEXT_CHARS.
    const uncompiled = await t.reopen({ rankFunction: false });
    const again = uncompiled.search.search({ query: 'tent lake' });
    expect(again.hits[0]!.id).toBe(sent.id);
    expect(again.hits[0]!.snippet).toMatch(/^\[tent\] \[tent\] .*…$/);
  });

  it('in a memory, on a read-only connection without the extension, shows the start of the text', async () => {
    const content = `${'tent '.repeat(19_990)}the lake`;
    t.brain.knowledge.remember({ agent: 'nova', content });
    expect(t.brain.search.search({ query: 'tent lake', types: ['stm'] }).hits[0]!.snippet).toMatch(
      /\[lake\]$/,
    );
    const uncompiled = await t.reopen({ rankFunction: false });
    connectionOf(uncompiled).pragma('query_only = 1');
    const found = uncompiled.search.search({ query: 'tent lake', types: ['stm'] });
    expect(found.hits[0]!.snippet).toBe(`${content.slice(0, 159)}…`);
  });
});

describe('the message index without stop words (migration 0007)', () => {
  it('drops each stop word standing alone, and nothing else, the same way forever', () => {
    // Frozen: the index's triggers recompute this text to remove a message from the index.
    expect(indexText("What did the spread gate do? Don't")).toBe("      spread gate  ?  ' ");
    expect(indexText('THE theatre, a café à la carte; the_end 4you')).toBe(
      '  theatre,   café à la carte;  _end 4you',
    );
    expect(indexText('théo the🙂 the')).toBe('théo the🙂  ');
    expect(indexText(null)).toBeNull();
  });

  it('holds no stop words, finds the other words, and stays consistent through updates and deletes', () => {
    const a = t.brain.messages.send({
      from: 'helios',
      to: 'nova',
      subject: 'the notes',
      body: 'The gate is on the main line',
    });
    const b = t.brain.messages.send({
      from: 'nova',
      to: 'helios',
      subject: 'the notes',
      body: 'the gate and the fence',
    });
    const db = connectionOf(t.brain);
    const count = (match: string) =>
      (
        db
          .prepare(`SELECT count(*) AS n FROM messages_fts WHERE messages_fts MATCH ?`)
          .get(match) as {
          n: number;
        }
      ).n;
    expect(count('"the"')).toBe(0);
    expect(count('"gate"')).toBe(2);
    expect(count('"nova"')).toBe(2); // sender: "helios to nova" holds nova, not "to"
    expect(count('"to"')).toBe(0);
    db.prepare(`UPDATE messages SET body = 'the fence only' WHERE uid = ?`).run(messageKey(b.id));
    db.prepare(
      `DELETE FROM deliveries WHERE message_id = (SELECT id FROM messages WHERE uid = ?)`,
    ).run(messageKey(a.id));
    db.prepare(`DELETE FROM messages WHERE uid = ?`).run(messageKey(a.id));
    expect(count('"gate"')).toBe(0);
    expect(count('"fence"')).toBe(1);
    expect(() =>
      db
        .prepare(`INSERT INTO messages_fts (messages_fts, rank) VALUES ('integrity-check', 1)`)
        .run(),
    ).not.toThrow();
  });

  it('answers a query of stop words alone from the text of the newest messages', () => {
    const hit = t.brain.messages.send({
      from: 'helios',
      to: 'nova',
      body: 'How are you all doing today?',
    });
    t.brain.messages.send({ from: 'helios', to: 'nova', body: 'doing fine, how about you' });
    const { hits } = t.brain.search.search({ query: 'how are you doing', types: ['message'] });
    expect(hits.map((h) => h.id)).toEqual([hit.id]);
    expect(hits[0]!.snippet).toContain('[doing]');
    // Filters apply before the cut.
    expect(
      t.brain.search.search({ query: 'how are you doing', types: ['message'], agent: 'nova' }).hits,
    ).toEqual([]);
  });

  it('reads only the newest messages for it, by rowid', () => {
    const steps = plan(STOP_WORDS_SQL, { ...NO_FILTERS, pattern: '%how%', k: 10 });
    expect(steps.join('\n')).toMatch(/SEARCH x USING INTEGER PRIMARY KEY \(rowid>\?\)/);
  });
});
