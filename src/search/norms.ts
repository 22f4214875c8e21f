import type { BrainContext } from '../context.js';
import { writeWithoutWaiting } from '../db/no-wait.js';
import { hasRankFunction } from '../db/rank-extension.js';
import type { SearchType } from '../validation.js';
import { FTS_TABLES } from './fts-tables.js';

/*
 * Saved row lengths (migration 0028). The ranking reads every row's length of an index once it
 * scores many of its rows (brain_fts.c's norms): at a million messages that takes a new process
 * about 100 ms, more than its search. So a connection that has read them hands them back here,
 * and they are saved for the next process, which reads them in about a millisecond and then only
 * the rows added since. Like the words' row counts, they are written without waiting for the
 * write lock, and hold only in the epoch they were read in.
 */

const SAVE_SQL = `INSERT INTO search_norms (tbl, epoch, upto, lengths)
  SELECT @tbl, @epoch, @upto, @lengths
  WHERE (SELECT epoch FROM search_count_epochs WHERE idx = @idx) = @epoch
  ON CONFLICT (tbl) DO UPDATE SET epoch = excluded.epoch, upto = excluded.upto, lengths = excluded.lengths
  WHERE excluded.epoch <> search_norms.epoch OR excluded.upto > search_norms.upto`;

/**
 * Save the row lengths this connection has read and the saved ones lack (brain_fts.c decides: a
 * 16th of an index's rows or more), without waiting: true when nothing remains to save, false
 * when another writer held the lock (the next process that reads them saves them). Lengths read
 * in an epoch the index has since left are not saved.
 */
export function flushNorms(ctx: Pick<BrainContext, 'db' | 'q'>): boolean {
  const { db } = ctx;
  if (db.readonly || !hasRankFunction(db) || db.inTransaction) return true;
  const exported: Array<{ idx: SearchType; tbl: string; lengths: Buffer }> = [];
  for (const [idx, table] of Object.entries(FTS_TABLES) as Array<[SearchType, string]>) {
    const tbl = `${table}_docsize`;
    const blob = ctx.q
      .get<[string], Buffer | null>(`SELECT brain_fts_norms_export(?)`)
      .pluck()
      .get(tbl);
    if (blob) exported.push({ idx, tbl, lengths: blob });
  }
  if (exported.length === 0) return true;
  const save =
    ctx.q.get<[{ idx: string; tbl: string; epoch: number; upto: number; lengths: Buffer }]>(
      SAVE_SQL,
    );
  return writeWithoutWaiting(db, () =>
    db
      .transaction(() => {
        for (const { idx, tbl, lengths } of exported) {
          save.run({
            idx,
            tbl,
            epoch: Number(lengths.readBigInt64LE(0)),
            upto: Number(lengths.readBigInt64LE(8)),
            lengths: lengths.subarray(16),
          });
        }
      })
      .immediate(),
  );
}
