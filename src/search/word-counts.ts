import type { BrainContext, WordCountNotes } from '../context.js';
import { writeWithoutWaiting } from '../db/no-wait.js';
import { hasRankFunction } from '../db/rank-extension.js';
import type { SearchType } from '../validation.js';
import { quoteTerm } from './fts-query.js';
import { FTS_TABLES } from './fts-tables.js';
import type { KeptWordCount } from './rank-caches.js';

/*
 * How many rows of an index hold a word, exactly, for BM25's idf and the pruning's bounds
 * (bm25-top-k.ts), without walking a common word's whole posting list in every process.
 *
 * A count is kept as (n, upto): n rows with an id ≤ upto hold the word. Rows enter the indexes
 * in id order; anything else (a delete, an edit of indexed text, an insert below the newest id)
 * moves the index to a new epoch and drops its kept counts in the same transaction (migration
 * 0015's triggers). So today's count is n plus the rows above upto that hold the word, and FTS5
 * reads a posting list newest first from its end: counting them stops at upto and costs what was
 * written since, not every row the word was ever in.
 *
 * Counts are kept per connection in memory and, for words common enough to be worth it, in the
 * brain (`search_word_counts`) for the next process. A read never writes: a count worth keeping
 * is noted here and written later without waiting for the lock, as access counts are
 * (`flushWordCounts`: long-running processes every few seconds, every brain as it closes), and
 * only if the epoch it was counted in is still the index's.
 */

/** A word held by fewer rows is counted afresh each time: that costs well under a millisecond. */
export const KEEP_FROM_ROWS = 1_000;

/** A kept count is written again once this many newer rows hold the word. */
export const REKEEP_AFTER_ROWS = 1_000;

/** How many words' counts a connection keeps per index, the least recently used dropped first. */
export const COUNTS_KEPT = 4096;

/** How many counts may wait to be written; more are dropped (they will be counted again). */
export const MAX_NOTED_COUNTS = 2_000;

export function createWordCountNotes(): WordCountNotes {
  return new Map();
}

/** What ranking reads of the brain's state: the connection, its statements, its caches. */
export type RankContext = Pick<BrainContext, 'db' | 'q' | 'ranking'>;

/**
 * What a connection's schema has, asked once per connection: `sql` counts the objects looked for
 * (a read-only connection to an older file may lack them).
 */
function schemaHas(sql: string): (ctx: RankContext) => boolean {
  return (ctx) => {
    let has = ctx.ranking.schema.get(sql);
    if (has === undefined) {
      has = ctx.q.get<[], { n: number }>(sql).get()!.n > 0;
      ctx.ranking.schema.set(sql, has);
    }
    return has;
  };
}

/** Whether the brain has the tables of counts (migration 0015). */
const keepsCounts = schemaHas(
  `SELECT count(*) AS n FROM sqlite_schema WHERE name = 'search_count_epochs'`,
);

/** Whether the brain keeps score classes beside the counts (migration 0017). */
const impactsColumn = schemaHas(
  `SELECT count(*) AS n FROM pragma_table_info('search_word_counts') WHERE name = 'impacts'`,
);

/** An index's epoch (migration 0015): what is kept of its words holds while it stays. */
function indexEpoch(ctx: Pick<BrainContext, 'q'>, type: SearchType): number {
  return ctx.q
    .get<[string], { epoch: number }>(`SELECT epoch FROM search_count_epochs WHERE idx = ?`)
    .get(type)!.epoch;
}

/** SQL keeping a word's count, unless its index has moved to another epoch or a newer one is kept. */
const KEEP_COUNT_SQL = `INSERT INTO search_word_counts (idx, term, n, upto)
  SELECT @idx, @term, @n, @upto
  WHERE (SELECT epoch FROM search_count_epochs WHERE idx = @idx) = @epoch
  ON CONFLICT (idx, term) DO UPDATE SET n = excluded.n, upto = excluded.upto
  WHERE excluded.upto > search_word_counts.upto`;

export interface WordCounter {
  /** Rows of the index holding the word, exact. */
  count(term: string): number;
  /** Rows of the index. */
  rows(): number;
  /** Rows of the index and their tokens, all columns (what brain_bm25's mean length is of). */
  totals(): { rows: number; tokens: number };
  /** The index's epoch (migration 0015): what is kept of a word holds while it stays. -1 without it. */
  epoch(): number;
}

type CounterContext = RankContext & { wordCounts?: WordCountNotes };

/** When a count is worth keeping (tests lower them). */
export interface KeepRule {
  /** Keep the counts of words held by at least this many rows (KEEP_FROM_ROWS). */
  keepFrom?: number;
  /** Write a kept count again once this many newer rows hold the word (REKEEP_AFTER_ROWS). */
  rekeepAfter?: number;
}

export function createWordCounter(
  ctx: CounterContext,
  type: SearchType,
  { keepFrom = KEEP_FROM_ROWS, rekeepAfter = REKEEP_AFTER_ROWS }: KeepRule = {},
): WordCounter {
  const table = FTS_TABLES[type];
  const db = ctx.db;
  const keptTable = keepsCounts(ctx);
  const fullStmt = ctx.q.get<[string], { n: number; top: number }>(
    `SELECT count(*) AS n, coalesce(max(rowid), 0) AS top FROM ${table} WHERE ${table} MATCH ?`,
  );
  let epoch: number | undefined;
  const currentEpoch = (): number => (epoch ??= keptTable ? indexEpoch(ctx, type) : -1);

  const storedAs = (key: string): KeptWordCount | undefined => {
    const row = ctx.q
      .get<[string, string], { n: number; upto: number }>(
        `SELECT n, upto FROM search_word_counts WHERE idx = ? AND term = ?`,
      )
      .get(type, key);
    return row && { n: row.n, upto: row.upto, epoch: currentEpoch() };
  };
  /** The word's count as kept in the brain: its own, else its token's from the census. */
  const stored = (term: string): KeptWordCount | undefined => {
    if (!keptTable) return undefined;
    const own = storedAs(term);
    if (own || !hasRankFunction(db) || !censusTaken(ctx, type, currentEpoch())) return own;
    const token = tokenOf(ctx, term);
    return token === undefined ? undefined : storedAs(`${CENSUS}${token}`);
  };

  /** The rows above `upto` holding the word, and the newest of them (upto when none). */
  const tail = (term: string, upto: number): { n: number; top: number } => {
    const newestFirst = ctx.q
      .get<[string], number>(
        `SELECT rowid FROM ${table} WHERE ${table} MATCH ? ORDER BY rowid DESC`,
      )
      .pluck();
    let n = 0;
    let top = upto;
    for (const rowid of newestFirst.iterate(quoteTerm(term)) as IterableIterator<number>) {
      if (rowid <= upto) break; // the iterator is closed on leaving the loop
      if (n === 0) top = rowid;
      n++;
    }
    return { n, top };
  };

  const note = (term: string, count: KeptWordCount): void => {
    const notes = ctx.wordCounts;
    if (!notes || !keptTable || db.readonly) return;
    const key = `${type}\0${term}`;
    if (!notes.has(key) && notes.size >= MAX_NOTED_COUNTS) return;
    notes.set(key, { ...count, type, term });
  };

  let figures: { rows: number; tokens: number } | undefined;
  const totals = () =>
    (figures ??= averages(
      ctx.q.get<[], { block: Buffer }>(`SELECT block FROM ${table}_data WHERE id = 1`).get()?.block,
    ));
  const rows = (): number => totals().rows;
  return {
    count(term) {
      // Inside a transaction what is counted may yet be rolled back: use, but keep nothing.
      const keep = !db.inTransaction;
      const now = currentEpoch();
      const map = ctx.ranking.counts[type];
      let base = map.get(term);
      if (base && base.epoch !== now) base = undefined;
      base ??= stored(term);
      if (base) {
        // Read before the tail: rows it sees that this did not make the next search look again.
        const indexRows = rows();
        const more = base.rows === indexRows ? { n: 0, top: base.upto } : tail(term, base.upto);
        const count = { n: base.n + more.n, upto: more.top, epoch: base.epoch, rows: indexRows };
        if (keep) {
          map.delete(term); // last used last
          map.set(term, count);
          if (more.n >= rekeepAfter) note(term, count);
        }
        return count.n;
      }
      const before = rows();
      const full = fullStmt.get(quoteTerm(term))!;
      if (keep) {
        const count = { n: full.n, upto: full.top, epoch: now, rows: before };
        map.set(term, count);
        if (full.n >= keepFrom) note(term, count);
      }
      if (map.size > COUNTS_KEPT) map.delete(map.keys().next().value!);
      return full.n;
    },
    rows,
    totals,
    epoch: currentEpoch,
  };
}

/**
 * The census: every word of an index counted at once, from FTS5's own vocabulary (fts5vocab walks
 * each token's posting list once, in C: about a second at a million messages, where counting one
 * common word the first time costs ~10 ms), for long-running processes to do once while idle
 * (search/warm.ts). The counts of the tokens held by at least KEEP_FROM_ROWS rows are kept in the
 * brain under `=<token>` (no word holds `=`), with `=` alone as the mark that the census of this
 * epoch was taken: the triggers that move an index to another epoch delete them with the rest. A
 * word met later is looked up by its token (brain_token, the indexes' own tokenizer) and counted
 * from there as any kept count is: the rows above upto, read newest first.
 */
export const CENSUS = '=';

function censusTaken(ctx: RankContext, type: SearchType, epoch: number): boolean {
  if (epoch < 0) return false;
  if (ctx.ranking.census.get(type) === epoch) return true;
  const taken =
    ctx.q
      .get<[string, string], { n: number }>(
        `SELECT count(*) AS n FROM search_word_counts WHERE idx = ? AND term = ?`,
      )
      .get(type, CENSUS)!.n > 0;
  if (taken) ctx.ranking.census.set(type, epoch);
  return taken;
}

/** The one token the indexes make of a word; undefined when it makes several or none. */
export function tokenOf(ctx: Pick<BrainContext, 'q'>, term: string): string | undefined {
  const token = ctx.q.get<[string], string>(`SELECT brain_token(?)`).pluck().get(term);
  return token && !token.includes(' ') ? token : undefined;
}

/**
 * Take an index's census unless this epoch's is taken (needs the compiled ranking extension, a
 * writable brain, no open transaction). Reads in one snapshot, then writes without waiting. The
 * tokens kept with their counts when it was taken now; undefined when it was not (taken before,
 * or another writer held the lock: then it is taken next time).
 */
export function takeCensus(
  ctx: RankContext,
  type: SearchType,
): Array<{ term: string; n: number }> | undefined {
  const db = ctx.db;
  if (db.readonly || db.inTransaction || !keepsCounts(ctx)) return undefined;
  if (censusTaken(ctx, type, indexEpoch(ctx, type))) return undefined;
  const table = FTS_TABLES[type];
  db.exec(
    `CREATE VIRTUAL TABLE IF NOT EXISTS temp.${table}_census USING fts5vocab(main, ${table}, row)`,
  );
  const census = db
    .transaction(() => ({
      epoch: indexEpoch(ctx, type),
      upto: ctx.q.get<[], number | null>(`SELECT max(rowid) FROM ${table}`).pluck().get() ?? 0,
      tokens: ctx.q
        .get<[number], { term: string; doc: number }>(
          `SELECT term, doc FROM temp.${table}_census WHERE doc >= ?`,
        )
        .all(KEEP_FROM_ROWS),
    }))
    .deferred();
  const write =
    ctx.q.get<[{ idx: string; term: string; n: number; upto: number; epoch: number }]>(
      KEEP_COUNT_SQL,
    );
  const row = { idx: type, upto: census.upto, epoch: census.epoch };
  const written = writeWithoutWaiting(db, () =>
    db
      .transaction(() => {
        for (const t of census.tokens) write.run({ ...row, term: `${CENSUS}${t.term}`, n: t.doc });
        write.run({ ...row, term: CENSUS, n: census.tokens.length });
      })
      .immediate(),
  );
  return written ? census.tokens.map((t) => ({ term: t.term, n: t.doc })) : undefined;
}

/**
 * A word's score classes as kept in the brain: valid in the index's current epoch (`epoch`, as the
 * caller read it), since the triggers that move it to another drop them (migration 0017). A word
 * with none of its own has its token's, when the census was taken and the token is a word of its
 * own (the same rows hold both).
 */
export function storedImpacts(
  ctx: RankContext,
  type: SearchType,
  term: string,
  epoch: number,
): Buffer | undefined {
  if (!impactsColumn(ctx)) return undefined;
  const of = (key: string) =>
    ctx.q
      .get<[string, string], Buffer | null>(
        `SELECT impacts FROM search_word_counts WHERE idx = ? AND term = ? AND impacts IS NOT NULL`,
      )
      .pluck()
      .get(type, key) ?? undefined;
  const own = of(term);
  if (own || !hasRankFunction(ctx.db) || !censusTaken(ctx, type, epoch)) return own;
  const token = tokenOf(ctx, term);
  return token !== undefined && token !== term && ownToken(ctx, token) ? of(token) : undefined;
}

/** The tokens the census of the index's current epoch kept, held by `from` rows or more then. */
export function censusTokens(
  ctx: RankContext,
  type: SearchType,
  from: number,
): Array<{ term: string; n: number }> {
  if (!keepsCounts(ctx) || !censusTaken(ctx, type, indexEpoch(ctx, type))) return [];
  return ctx.q
    .get<[string, number], { term: string; n: number }>(
      `SELECT substr(term, 2) AS term, n FROM search_word_counts
       WHERE idx = ? AND term > '=' AND term < '>' AND n >= ? ORDER BY n DESC`,
    )
    .all(type, from);
}

/** Whether a token is its own only token (porter leaves most stems as they are, not all). */
export function ownToken(ctx: Pick<BrainContext, 'q'>, token: string): boolean {
  return tokenOf(ctx, token) === token;
}

/** SQL keeping a word's classes, with a count of its own for a word that has none kept. */
const KEEP_IMPACTS_SQL = `INSERT INTO search_word_counts (idx, term, n, upto, impacts)
  SELECT @idx, @term, @n, @upto, @impacts
  WHERE (SELECT epoch FROM search_count_epochs WHERE idx = @idx) = @epoch
  ON CONFLICT (idx, term) DO UPDATE SET impacts = excluded.impacts`;

/**
 * Keep words' classes read in `epoch` now, in one transaction, without waiting: false when
 * another writer held the lock. Nothing is kept if the index has moved to another epoch since.
 */
export function keepImpacts(
  ctx: RankContext,
  type: SearchType,
  epoch: number,
  words: ReadonlyArray<{ term: string; n: number; upto: number; impacts: Buffer }>,
): boolean {
  if (words.length === 0 || !impactsColumn(ctx)) return true;
  const write =
    ctx.q.get<
      [{ idx: string; term: string; n: number; upto: number; epoch: number; impacts: Buffer }]
    >(KEEP_IMPACTS_SQL);
  return writeWithoutWaiting(ctx.db, () =>
    ctx.db
      .transaction(() => {
        for (const w of words) write.run({ idx: type, epoch, ...w });
      })
      .immediate(),
  );
}

/**
 * Note a word's score classes, read in `epoch`, to be kept for the next process: written with the
 * counts, later and without waiting, and only if the epoch is still the index's. `n` rows up to
 * `upto` hold the word (what the classes were read from).
 */
export function noteImpacts(
  ctx: RankContext & { wordCounts?: WordCountNotes },
  type: SearchType,
  term: string,
  kept: { n: number; upto: number; epoch: number; impacts: Buffer },
): void {
  const notes = ctx.wordCounts;
  if (!notes || ctx.db.readonly || ctx.db.inTransaction || !impactsColumn(ctx)) return;
  const key = `impacts\0${type}\0${term}`;
  if (!notes.has(key) && notes.size >= MAX_NOTED_COUNTS) return;
  notes.set(key, { ...kept, type, term });
}

/**
 * Write the noted counts in one transaction, without waiting: true when nothing remains noted,
 * false when another writer holds the lock or the disk takes no writes (the notes are kept). A
 * count whose index has moved to another epoch since is dropped; a kept count is only replaced
 * by a newer one.
 */
export function flushWordCounts(ctx: RankContext & { wordCounts: WordCountNotes }): boolean {
  const notes = ctx.wordCounts;
  if (notes.size === 0) return true;
  if (ctx.db.readonly) {
    notes.clear();
    return true;
  }
  const pending = [...notes.values()];
  const write =
    ctx.q.get<[{ idx: string; term: string; n: number; upto: number; epoch: number }]>(
      KEEP_COUNT_SQL,
    );
  // Classes come with a count of their own: a row for the word that holds none is made with it.
  const writeImpacts = () =>
    ctx.q.get<
      [{ idx: string; term: string; n: number; upto: number; epoch: number; impacts: Buffer }]
    >(KEEP_IMPACTS_SQL);
  const written = writeWithoutWaiting(ctx.db, () =>
    ctx.db
      .transaction(() => {
        for (const c of pending) {
          const row = { idx: c.type, term: c.term, n: c.n, upto: c.upto, epoch: c.epoch };
          if (c.impacts) writeImpacts().run({ ...row, impacts: c.impacts });
          else write.run(row);
        }
      })
      .immediate(),
  );
  if (written) notes.clear(); // nothing can note meanwhile: the write is synchronous
  return written;
}

/**
 * The first varint of a record (SQLite's varint: big-endian 7-bit groups, the 9th byte whole):
 * in FTS5's averages record (`<index>_data`, id 1) the index's row count, as xRowCount reads it.
 */
export function leadingVarint(block: Buffer | undefined): number {
  return block ? readVarint(block, 0)[0] : 0;
}

/** The varint at `at`, and where the next one starts. */
export function readVarint(block: Buffer, at: number): [number, number] {
  let v = 0;
  for (let i = 0; i < 9 && at + i < block.length; i++) {
    const b = block[at + i]!;
    if (i === 8) return [v * 256 + b, at + 9];
    v = v * 128 + (b & 0x7f);
    if (!(b & 0x80)) return [v, at + i + 1];
  }
  return [v, block.length];
}

/**
 * An averages record's figures: the row count, then each column's total tokens (summed here, as
 * xColumnTotalSize(-1) sums them).
 */
function averages(block: Buffer | undefined): { rows: number; tokens: number } {
  if (!block) return { rows: 0, tokens: 0 };
  const [rows, first] = readVarint(block, 0);
  let at = first;
  let tokens = 0;
  while (at < block.length) {
    const [v, next] = readVarint(block, at);
    tokens += v;
    at = next;
  }
  return { rows, tokens };
}
