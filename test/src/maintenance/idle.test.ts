import BetterSqlite3 from 'better-sqlite3';
import { statSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectionOf } from '../../../src/brain.js';
import type { Brain } from '../../../src/index.js';
import { readFtsStructure, type FtsStructure } from '../../../src/maintenance/fts-structure.js';
import { IDLE_CHECKPOINT_BYTES } from '../../../src/maintenance/idle.js';
import { KEEP_FROM_ROWS } from '../../../src/search/word-counts.js';
import { tempBrain, type TempBrain } from '../../helpers.js';

let t: TempBrain;
let other: BetterSqlite3.Database | undefined;
beforeEach(async () => {
  t = await tempBrain();
});
afterEach(() => {
  other?.close();
  other = undefined;
  t.cleanup();
});

const structure = (brain: Brain = t.brain): FtsStructure =>
  readFtsStructure(connectionOf(brain), 'messages_fts');
const structureBlock = () =>
  (
    connectionOf(t.brain).prepare('SELECT block FROM messages_fts_data WHERE id = 10').get() as {
      block: Buffer;
    }
  ).block;
const walBytes = () => statSync(`${t.path}-wal`, { throwIfNoEntry: false })?.size ?? 0;

/**
 * Messages of words found nowhere else, in batches (one transaction each), with FTS5's own
 * merging at commit turned off: the index is left with levels of many segments, as a run of
 * commits leaves it between two of FTS5's merges.
 */
function unmergedIndex(batches = 6, perBatch = 600): void {
  connectionOf(t.brain).exec(
    `INSERT INTO messages_fts (messages_fts, rank) VALUES ('automerge', 0)`,
  );
  let word = 0;
  for (let b = 0; b < batches; b++) {
    t.brain.batch(() => {
      for (let i = 0; i < perBatch; i++) {
        const body = Array.from({ length: 12 }, () => `w${word++}x`).join(' ');
        t.brain.messages.send({ from: 'helios', to: 'nova', body });
      }
    });
  }
}

const crowded = (s: FtsStructure) => s.levels.some((l) => l.merging > 0 || l.segments.length >= 4);

describe('idle merging of the full-text indexes', () => {
  it('merges what FTS5 left, a bounded step at a time, until no level holds four segments', () => {
    unmergedIndex();
    const before = structure();
    expect(crowded(before)).toBe(true);

    const first = t.brain.upkeep.maintain({ steps: 1 });
    expect(first).toMatchObject({ merged: 1, pending: true, busy: false });
    // One step of 64 pages leaves a merge of more pages under way, resumed by the next call.
    expect(structure().levels.some((l) => l.merging > 0)).toBe(true);

    let calls = 1;
    while (t.brain.upkeep.maintain({ steps: 1 }).pending) calls++;
    expect(calls).toBeGreaterThan(1);
    const after = structure();
    expect(crowded(after)).toBe(false);
    expect(after.segments).toBeLessThan(before.segments);

    const db = connectionOf(t.brain);
    expect(() =>
      db.exec(`INSERT INTO messages_fts (messages_fts) VALUES ('integrity-check')`),
    ).not.toThrow();
    expect(t.brain.search.search({ query: 'w4321x' }).hits).toHaveLength(1);
  });

  it('reports nothing pending, and writes nothing, when no level needs merging', () => {
    t.brain.messages.send({ from: 'helios', to: 'nova', body: 'spread gate' });
    const block = structureBlock();
    expect(t.brain.upkeep.maintain()).toMatchObject({ merged: 0, pending: false, busy: false });
    expect(structureBlock().equals(block)).toBe(true);
  });

  it('gives up at once while another process holds the write lock, changing nothing', () => {
    unmergedIndex(5, 200);
    const block = structureBlock();
    other = new BetterSqlite3(t.path);
    other.exec('BEGIN IMMEDIATE');
    // Waiting would take the brain's busy_timeout (10 s), past this test's time limit.
    expect(t.brain.upkeep.maintain()).toMatchObject({ merged: 0, pending: true, busy: true });
    expect(structureBlock().equals(block)).toBe(true);
    other.exec('COMMIT');
    expect(t.brain.upkeep.maintain({ steps: 100 })).toMatchObject({ pending: false, busy: false });
    expect(crowded(structure())).toBe(false);
  });

  it('does nothing on a read-only brain', async () => {
    unmergedIndex(5, 200);
    const block = structureBlock();
    const reader = await t.reopen({ readonly: true });
    expect(reader.upkeep.maintain({ steps: 100 })).toEqual({
      merged: 0,
      pending: false,
      checkpointed: false,
      busy: false,
    });
    expect(structureBlock().equals(block)).toBe(true);
    expect(crowded(structure(reader))).toBe(true);
  });

  it('adds nothing to a batch it is called inside: the batch commits or rolls back alone', () => {
    unmergedIndex(5, 200);
    const block = structureBlock();
    expect(() =>
      t.brain.batch(() => {
        expect(t.brain.upkeep.maintain({ steps: 100 })).toMatchObject({
          merged: 0,
          pending: false,
        });
        throw new Error('rolled back');
      }),
    ).toThrow('rolled back');
    expect(structureBlock().equals(block)).toBe(true);
    expect(t.brain.upkeep.maintain({ steps: 100 })).toMatchObject({ pending: false });
    expect(crowded(structure())).toBe(false);
  });

  it('refuses a step budget that is not a whole number', () => {
    expect(() => t.brain.upkeep.maintain({ steps: 1.5 })).toThrow(/steps: must be a whole number/);
  });
});

describe('idle checkpoints of the WAL', () => {
  /** Bodies that fill the WAL past the idle limit, below the keeper's 16 MiB. */
  function fillWal(): void {
    const body = 'x'.repeat(100_000);
    for (let i = 0; walBytes() < IDLE_CHECKPOINT_BYTES; i++)
      t.brain.messages.send({ from: 'helios', to: 'nova', body: `${i} ${body}` });
  }

  it('empties a WAL of 4 MiB or more and leaves a smaller one alone', () => {
    t.brain.messages.send({ from: 'helios', to: 'nova', body: 'spread gate' });
    const small = walBytes();
    expect(small).toBeGreaterThan(0);
    expect(t.brain.upkeep.maintain().checkpointed).toBe(false);
    expect(walBytes()).toBe(small);

    fillWal();
    expect(t.brain.upkeep.maintain()).toMatchObject({ checkpointed: true, busy: false });
    expect(walBytes()).toBe(0);
  });

  it('does not wait for a reader of an older snapshot, and empties the WAL once it is gone', () => {
    fillWal();
    other = new BetterSqlite3(t.path);
    other.exec('BEGIN');
    other.prepare('SELECT count(*) FROM messages').get();
    t.brain.messages.send({ from: 'helios', to: 'nova', body: 'after the reader began' });

    expect(t.brain.upkeep.maintain()).toMatchObject({ checkpointed: false, busy: true });
    expect(walBytes()).toBeGreaterThanOrEqual(IDLE_CHECKPOINT_BYTES);
    other.exec('COMMIT');
    t.brain.messages.send({ from: 'helios', to: 'nova', body: 'the WAL grows again' });
    expect(t.brain.upkeep.maintain()).toMatchObject({ checkpointed: true, busy: false });
    expect(walBytes()).toBe(0);
  });
});

describe('idle writes of what reads noted', () => {
  it('writes the row counts a search noted, as a process would otherwise only on closing', () => {
    t.brain.batch(() => {
      for (let i = 0; i < KEEP_FROM_ROWS + 10; i++)
        t.brain.messages.send({ from: 'helios', to: 'nova', body: `lantern ${i}` });
    });
    const kept = () =>
      connectionOf(t.brain)
        .prepare(`SELECT n FROM search_word_counts WHERE idx = 'message' AND term = 'lantern'`)
        .pluck()
        .get();
    t.brain.search.search({ query: 'lantern' });
    expect(kept()).toBeUndefined(); // a search writes nothing itself
    t.brain.upkeep.maintain();
    expect(kept()).toBe(KEEP_FROM_ROWS + 10);
  });
});
