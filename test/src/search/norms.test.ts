import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectionOf } from '../../../src/brain.js';
import type { Brain } from '../../../src/index.js';
import { fixedClock, tempBrain, type TempBrain } from '../../helpers.js';

const SIZES = 'messages_fts_docsize';

let t: TempBrain;
let raw: BetterSqlite3.Database;
beforeEach(async () => {
  t = await tempBrain({ clock: fixedClock() });
  raw = new BetterSqlite3(t.path);
});
afterEach(() => {
  raw.close();
  t.cleanup();
});

/** n messages of 3 to 15 words, some of them `lantern`. */
function send(n: number): void {
  t.brain.batch(() => {
    for (let i = 0; i < n; i += 1) {
      const words = Array.from({ length: 2 + (i % 13) }, (_, j) => (j % 2 ? 'rope' : 'harbour'));
      t.brain.messages.send({
        from: 'atlas',
        to: 'nova',
        body: `${i % 10 === 0 ? 'lantern ' : ''}${words.join(' ')} ${i}`,
      });
    }
  });
}

/** The row lengths FTS5 itself gives (xColumnSize), by rowid. */
function trueLengths(): Map<number, number> {
  const db = connectionOf(t.brain);
  const rows = db
    .prepare(`SELECT rowid, brain_length(messages_fts, NULL) AS d FROM messages_fts`)
    .all() as Array<{ rowid: number; d: number }>;
  return new Map(rows.map((r) => [r.rowid, r.d]));
}

/** The saved row of the message index, its lengths decoded. */
function saved(): { epoch: number; upto: number; lengths: number[] } | undefined {
  const row = raw
    .prepare(`SELECT epoch, upto, lengths FROM search_norms WHERE tbl = ?`)
    .get(SIZES) as { epoch: number; upto: number; lengths: Buffer } | undefined;
  if (!row) return undefined;
  const lengths = Array.from({ length: row.upto + 1 }, (_, i) => row.lengths.readUInt16LE(2 * i));
  return { epoch: row.epoch, upto: row.upto, lengths };
}

/** A new connection's lengths, read into memory now: the last rowid they hold. */
function load(brain: Brain): number {
  return connectionOf(brain).prepare(`SELECT brain_fts_norms(?)`).pluck().get(SIZES) as number;
}

/** Row `rowid`'s length as the ranking reads it on `brain`'s connection. */
function lengthOn(brain: Brain, rowid: number): number {
  return connectionOf(brain)
    .prepare(`SELECT brain_length(messages_fts, ?) FROM messages_fts WHERE rowid = ?`)
    .pluck()
    .get(SIZES, rowid) as number;
}

/**
 * 2,500 messages whose lengths a connection read and saved, then one saved length (row 7's)
 * changed to 1, which no row has: a connection that ranks with it read the saved row.
 */
async function savedWithAMark(): Promise<number> {
  send(2500);
  const first = await t.reopen();
  load(first);
  first.close();
  const marked = 7;
  const blob = raw.prepare(`SELECT lengths FROM search_norms WHERE tbl = ?`).pluck().get(SIZES);
  (blob as Buffer).writeUInt16LE(1, 2 * marked);
  raw.prepare(`UPDATE search_norms SET lengths = ? WHERE tbl = ?`).run(blob, SIZES);
  return marked;
}

const newest = () => raw.prepare(`SELECT max(id) FROM messages`).pluck().get() as number;

describe('saved row lengths', () => {
  it('are saved by a connection that read them, each length as FTS5 counts it', async () => {
    send(2500);
    const reader = await t.reopen();
    expect(load(reader)).toBe(newest());
    expect(saved()).toBeUndefined();
    reader.close(); // what a closing search process does: it writes what reads noted
    const row = saved()!;
    expect(row).toMatchObject({ epoch: 0, upto: newest() });
    const want = trueLengths();
    row.lengths.forEach((length, rowid) => expect(length).toBe(want.get(rowid) ?? 0xffff));
  });

  it('are read by the next connection, with the rows added since, and rank as bm25() does', async () => {
    // A length only the saved row holds: a connection reading lengths takes them from there.
    const marked = await savedWithAMark();
    send(30);
    const next = await t.reopen();
    expect(load(next)).toBe(newest());
    expect(lengthOn(next, marked)).toBe(1);
    const want = trueLengths();
    expect(lengthOn(next, newest())).toBe(want.get(newest()));
    expect(lengthOn(next, newest() - 29)).toBe(want.get(newest() - 29));

    // Saved honestly, the ranking is bm25()'s.
    raw.prepare(`DELETE FROM search_norms`).run();
    const honest = await t.reopen();
    load(honest);
    honest.close();
    const ranked = await t.reopen();
    load(ranked);
    const reference = await t.reopen({ rankFunction: false });
    for (const query of ['lantern', 'lantern rope', 'harbour', 'rope 17']) {
      const mine = ranked.search.search({ query, types: ['message'], limit: 20 }).hits;
      const theirs = reference.search.search({ query, types: ['message'], limit: 20 }).hits;
      expect(mine.map((h) => h.id)).toEqual(theirs.map((h) => h.id));
      mine.forEach((h, i) => expect(h.score).toBeCloseTo(theirs[i]!.score, 9));
    }
  });

  it('hold only in the epoch they were read in', async () => {
    const marked = await savedWithAMark();
    // What a delete or an edit of an indexed row does (the counts' triggers, migration 0015).
    raw.prepare(`UPDATE search_count_epochs SET epoch = epoch + 1 WHERE idx = 'message'`).run();
    const next = await t.reopen();
    load(next);
    expect(lengthOn(next, marked)).toBe(trueLengths().get(marked));
  });

  it('are not saved when the index moved to another epoch after they were read', async () => {
    send(2500);
    const reader = await t.reopen();
    load(reader);
    raw.prepare(`UPDATE search_count_epochs SET epoch = epoch + 1 WHERE idx = 'message'`).run();
    reader.close();
    expect(saved()).toBeUndefined();
  });

  it('are not saved for a small index, nor again for a few rows more', async () => {
    send(1500);
    const small = await t.reopen();
    load(small);
    small.close();
    expect(saved()).toBeUndefined();
    send(1000);
    const reader = await t.reopen();
    load(reader);
    reader.close();
    const upto = saved()!.upto;
    // A 16th of the rows (at least 2,000) must be added before the saved row is written again.
    send(100);
    const again = await t.reopen();
    expect(load(again)).toBe(upto + 100);
    again.close();
    expect(saved()!.upto).toBe(upto);
  });
});
