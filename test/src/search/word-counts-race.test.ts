import BetterSqlite3 from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StatementCache } from '../../../src/db/open.js';
import { createRankCaches } from '../../../src/search/rank-caches.js';
import { quoteTerm } from '../../../src/search/fts-query.js';
import {
  createWordCountNotes,
  createWordCounter,
  flushWordCounts,
} from '../../../src/search/word-counts.js';
import { ROOT, tempBrain, type TempBrain } from '../../helpers.js';

let t: TempBrain | undefined;
afterEach(() => t?.cleanup());

const WORDS = ['amber', 'birch', 'cedar', 'delta', 'ember', 'fjord'];

/**
 * Another process writes to the brain while this one counts words, keeps the counts and writes
 * them: appends mostly, and deletes and edits of older rows, which move the index to a new epoch.
 * Whatever the interleaving, every count kept in the brain must hold: `n` rows up to `upto`.
 */
const WRITER = `
  import { openBrain, connectionOf } from ${JSON.stringify(join(ROOT, 'dist', 'src', 'brain.js'))};
  const brain = await openBrain({ dbPath: process.argv[1] });
  const db = connectionOf(brain);
  db.pragma('foreign_keys = OFF'); // another tool: it leaves the rows pointing at a message alone
  const words = ${JSON.stringify(WORDS)};
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const body = () => words.filter((_, i) => rand() < 0.7 - i * 0.1).join(' ') + ' ' + seed;
  for (let op = 0; op < 1200; op++) {
    const r = rand();
    const max = db.prepare('SELECT max(id) FROM messages').pluck().get();
    if (r < 0.9) brain.messages.send({ from: 'atlas', to: 'nova', body: body() });
    else if (r < 0.95) db.prepare('DELETE FROM messages WHERE id = ?').run(1 + Math.floor(rand() * max));
    else db.prepare('UPDATE messages SET body = ? WHERE id = ?').run(body(), 1 + Math.floor(rand() * max));
  }
  brain.close();
`;

describe("words' row counts kept while another process writes", () => {
  it('hold for every kept word, whatever the interleaving of counting, writing and changing', async () => {
    t = await tempBrain();
    const brain = t.brain;
    brain.batch(() => {
      for (let i = 0; i < 400; i++)
        brain.messages.send({
          from: 'atlas',
          to: 'nova',
          body: `${WORDS.slice(0, 1 + (i % 6)).join(' ')}`,
        });
    });
    const child = spawn(process.execPath, ['--input-type=module', '-e', WRITER, t.path], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    let done = false;
    const exited = new Promise<number | null>((resolve) =>
      child.on('close', (code) => {
        done = true;
        resolve(code);
      }),
    );
    // A long-lived connection (its memory reused) and a new one each round, as new processes.
    const keepAll = { keepFrom: 1, rekeepAfter: 5 };
    const longLived = new BetterSqlite3(t.path);
    const lived = {
      db: longLived,
      q: new StatementCache(longLived),
      ranking: createRankCaches(),
      wordCounts: createWordCountNotes(),
    };
    let rounds = 0;
    let keptSeen = 0; // rounds after which some count was kept: the check below is not empty
    while (!done) {
      const fresh = new BetterSqlite3(t.path);
      const once = {
        db: fresh,
        q: new StatementCache(fresh),
        ranking: createRankCaches(),
        wordCounts: createWordCountNotes(),
      };
      for (const ctx of [lived, once]) {
        const counter = createWordCounter(ctx, 'message', keepAll);
        for (const w of WORDS) counter.count(w);
      }
      // The other process goes on between counting and writing the counts, as it may between a
      // search and its brain's close.
      await new Promise((resolve) => setTimeout(resolve, 4));
      for (const ctx of [lived, once]) flushWordCounts(ctx);
      // In one snapshot: every count kept must hold then, not only at the end.
      const wrong = fresh.transaction(() => {
        const rows = fresh
          .prepare(`SELECT term, n, upto FROM search_word_counts WHERE idx = 'message'`)
          .all() as Array<{ term: string; n: number; upto: number }>;
        if (rows.length > 0) keptSeen++;
        const upTo = fresh
          .prepare(`SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ? AND rowid <= ?`)
          .pluck();
        return rows.filter((k) => upTo.get(quoteTerm(k.term), k.upto) !== k.n);
      })();
      expect(wrong, `round ${rounds}`).toEqual([]);
      fresh.close();
      rounds++;
    }
    expect(await exited, err).toBe(0);
    expect(rounds).toBeGreaterThan(3);
    expect(keptSeen).toBeGreaterThan(0);

    const db = new BetterSqlite3(t.path, { readonly: true });
    const kept = db
      .prepare(`SELECT term, n, upto FROM search_word_counts WHERE idx = 'message'`)
      .all() as Array<{ term: string; n: number; upto: number }>;
    const upTo = db.prepare(
      `SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ? AND rowid <= ?`,
    );
    for (const k of kept) expect(upTo.pluck().get(quoteTerm(k.term), k.upto), k.term).toBe(k.n);
    // And the counts a search would use now, kept or not, are the index's own.
    const all = db.prepare(`SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?`);
    const now = createWordCounter(
      { db, q: new StatementCache(db), ranking: createRankCaches() },
      'message',
    );
    for (const w of WORDS) expect(now.count(w), w).toBe(all.pluck().get(quoteTerm(w)));
    const reused = createWordCounter(lived, 'message');
    for (const w of WORDS) expect(reused.count(w), w).toBe(all.pluck().get(quoteTerm(w)));
    db.close();
    longLived.close();
  });
});
