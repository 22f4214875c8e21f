// Reading messages into knowledge, off the write path: a pass takes the messages an extractor has
// not read yet (past its cursor) and those waiting to be read again (edited, or failed before),
// asks the extractor what they say, and stores what it learned and moves the cursor in one
// transaction. A pass cut short is resumed where it stopped; two processes draining at once
// store each message once (the second finds the cursor moved and drops its copy).
import { isoSql, millisOf } from '../../clock.js';
import type { BrainContext } from '../../context.js';
import { BrainError } from '../../errors.js';
import { messageIdSql, threadIdSql } from '../../ids.js';
import { writeWithoutWaiting } from '../../db/no-wait.js';
import { check } from '../../input/check.js';
import { extractInput } from '../input.js';
import { forgetLearnedFrom, learn, type LearnedAction } from './learn.js';
import type { ExtractThreads } from '../../vocabulary.js';
import type { ExtractedEntry, ExtractTurn, Extractor } from './types.js';

/** The tag that marks a thread for extraction when only tagged threads are read. */
export const EXTRACT_TAG = 'extract';

/** How many earlier turns of its thread an extractor sees beside a turn. */
export const TURNS_BEFORE = 3;

/** A read that failed is tried again after this, doubled each time, up to an hour. */
const RETRY_BASE_MS = 30_000;

export interface ExtractOptions {
  threads?: ExtractThreads;
  /**
   * Read messages sent since this time (ISO 8601): the extractor's cursor moves back (or on) to
   * it first, so messages already read are read again (what they teach is already known: nothing
   * is stored twice) and older unread ones are left behind.
   */
  since?: string;
  /** Read and report, store nothing, move nothing. */
  dryRun?: boolean;
  /** Stop after this many messages. */
  limit?: number | string;
  /** Messages per batch (one transaction each). */
  batchSize?: number;
  /**
   * Never wait for the write lock (a background pass beside requests): when another connection
   * holds it, the pass stops with `busy` and what it read is read again by the next.
   */
  noWait?: boolean;
  signal?: AbortSignal;
}

export interface ExtractedFrom {
  message_id: string;
  entries: ExtractedEntry[];
}

export interface ExtractResult {
  extractor: string;
  /** Messages read. */
  read: number;
  /** Messages passed over: their thread is not one extraction reads. */
  skipped: number;
  added: number;
  merged: number;
  superseded: number;
  /** Messages whose read failed; they wait to be tried again. */
  failed: number;
  errors: string[];
  /** With `dryRun`: what each message read would teach. */
  learned?: ExtractedFrom[];
  /** With `noWait`: the pass stopped because another connection held the write lock. */
  busy?: boolean;
}

export interface ExtractStatus {
  extractor: string;
  /** Messages not read yet by it, or waiting to be read again. */
  pending: number;
  /** Of those, reads that failed and wait for their retry. */
  failed: number;
  /** Current entries it learned (neither superseded nor lapsed). */
  entries: number;
  last_error: string | null;
}

export function extractorId(extractor: Pick<Extractor, 'name' | 'version'>): string {
  return `${extractor.name}@${extractor.version}`;
}

export interface TurnRow {
  rowid: number;
  id: string;
  thread_rowid: number;
  thread_id: string;
  sender_id: number;
  sender: string;
  to: string | null;
  subject: string | null;
  body: string;
  created_at: string;
  tagged: number;
}

/** A message as a turn to read (see TurnRow); the summaries read threads with it too. */
export const TURN_SELECT = `
  SELECT m.id AS rowid, ${messageIdSql('m.uid')} AS id, m.thread_id AS thread_rowid,
         ${threadIdSql('t.uid')} AS thread_id, m.from_agent AS sender_id, fa.name AS sender,
         ta.name AS "to", coalesce(m.subject, t.subject) AS subject, m.body,
         ${isoSql('m.created_at')} AS created_at,
         EXISTS (SELECT 1 FROM thread_tags g WHERE g.thread_id = m.thread_id AND g.tag = '${EXTRACT_TAG}') AS tagged
  FROM messages m JOIN threads t ON t.id = m.thread_id JOIN agents fa ON fa.id = m.from_agent
  LEFT JOIN agents ta ON ta.id = m.to_agent`;

export function toTurn(ctx: BrainContext, row: TurnRow): ExtractTurn {
  const recipients = row.to
    ? [row.to]
    : ctx.q
        .get<[number], { name: string }>(
          `SELECT a.name FROM deliveries d JOIN agents a ON a.id = d.agent_id WHERE d.message_id = ? ORDER BY a.name`,
        )
        .all(row.rowid)
        .map((r) => r.name);
  return {
    id: row.id,
    thread_id: row.thread_id,
    sender: row.sender,
    recipients,
    subject: row.subject,
    body: row.body,
    created_at: row.created_at,
  };
}

/** The turns before `row` in its thread, oldest first. */
function turnsBefore(ctx: BrainContext, row: TurnRow): TurnRow[] {
  return ctx.q
    .get<[{ thread: number; at: number; id: number; n: number }], TurnRow>(
      `${TURN_SELECT} WHERE m.thread_id = @thread
         AND (m.created_at < @at OR (m.created_at = @at AND m.id < @id))
       ORDER BY m.created_at DESC, m.id DESC LIMIT @n`,
    )
    .all({ thread: row.thread_rowid, at: millisOf(row.created_at), id: row.rowid, n: TURNS_BEFORE })
    .reverse();
}

function cursorOf(ctx: BrainContext, id: string): number {
  return (
    ctx.q
      .get<[string], { last_id: number }>(`SELECT last_id FROM extract_cursor WHERE extractor = ?`)
      .get(id)?.last_id ?? 0
  );
}

/** The last message sent before `since`: where a pass that starts at `since` puts the cursor. */
function cursorBefore(ctx: BrainContext, since: string): number {
  return ctx.q
    .get<[number], { id: number }>(
      `SELECT coalesce(max(id), 0) AS id FROM messages WHERE created_at < ?`,
    )
    .get(millisOf(since))!.id;
}

interface Batch {
  /** Messages past the cursor, in id order. */
  fresh: TurnRow[];
  /** Messages waiting to be read again. */
  again: TurnRow[];
}

function nextBatch(ctx: BrainContext, cursor: number, size: number, now: number): Batch {
  const again = ctx.q
    .get<[{ now: number; n: number }], TurnRow>(
      `${TURN_SELECT} JOIN extract_queue q ON q.message_id = m.id
       WHERE q.retry_at IS NULL OR q.retry_at <= @now ORDER BY q.enqueued_at, m.id LIMIT @n`,
    )
    .all({ now, n: size });
  const fresh = ctx.q
    .get<[{ cursor: number; n: number }], TurnRow>(
      `${TURN_SELECT} WHERE m.id > @cursor ORDER BY m.id LIMIT @n`,
    )
    .all({ cursor, n: Math.max(0, size - again.length) });
  return { fresh, again };
}

interface Read {
  row: TurnRow;
  /** Its thread is not one extraction reads. */
  skipped?: boolean;
  /** Row ids of the turns it may cite, by message id. */
  cites: Map<string, number>;
  entries?: ExtractedEntry[];
  error?: string;
}

async function readTurn(ctx: BrainContext, extractor: Extractor, row: TurnRow): Promise<Read> {
  const before = turnsBefore(ctx, row);
  const cites = new Map([...before, row].map((r) => [r.id, r.rowid]));
  try {
    const entries = await extractor.extract(
      toTurn(ctx, row),
      before.map((r) => toTurn(ctx, r)),
    );
    return { row, cites, entries };
  } catch (err) {
    return { row, cites, error: (err as Error).message };
  }
}

/** The row ids an entry cites, the turn read first; the turn alone when it cites none it may. */
function sourcesOf(read: Read, entry: ExtractedEntry): number[] {
  const cited = entry.sources
    .map((id) => read.cites.get(id))
    .filter((rowid): rowid is number => rowid !== undefined);
  return [...new Set([read.row.rowid, ...cited])];
}

/**
 * An entry's key as its thread's: what a turn says can supersede only what was learned in the
 * same thread, so a message elsewhere (a stranger's, another agent's) cannot retire knowledge by
 * naming its key.
 */
function scoped(entry: ExtractedEntry, row: TurnRow): ExtractedEntry {
  return entry.key ? { ...entry, key: `${row.thread_id}|${entry.key}` } : entry;
}

function store(
  ctx: BrainContext,
  id: string,
  reads: Read[],
  batch: Batch,
  result: ExtractResult,
): void {
  const now = ctx.clock().getTime();
  const cursor = cursorOf(ctx, id);
  const count = (action: LearnedAction) => {
    if (action === 'added') result.added++;
    else if (action === 'merged') result.merged++;
    else result.superseded++;
  };
  const queued = new Set(batch.again.map((r) => r.rowid));
  for (const read of reads) {
    const isQueued = queued.has(read.row.rowid);
    // Another process stored this message since the batch was taken.
    if (!isQueued && read.row.rowid <= cursor) continue;
    if (read.error !== undefined) {
      result.failed++;
      result.errors.push(`${read.row.id}: ${read.error}`);
      const attempts =
        (ctx.q
          .get<[number], { attempts: number }>(
            `SELECT attempts FROM extract_queue WHERE message_id = ?`,
          )
          .get(read.row.rowid)?.attempts ?? 0) + 1;
      const wait = Math.min(RETRY_BASE_MS * 2 ** (attempts - 1), 3_600_000);
      ctx.q
        .get(
          `INSERT INTO extract_queue (message_id, enqueued_at, attempts, retry_at, last_error)
           VALUES (@id, @now, @attempts, @retry, @error)
           ON CONFLICT(message_id) DO UPDATE SET attempts = @attempts, retry_at = @retry, last_error = @error`,
        )
        .run({
          id: read.row.rowid,
          now,
          attempts,
          retry: now + wait,
          error: read.error.slice(0, 1000),
        });
      continue;
    }
    if (isQueued) {
      forgetLearnedFrom(ctx, read.row.rowid, now);
      ctx.q.get(`DELETE FROM extract_queue WHERE message_id = ?`).run(read.row.rowid);
    }
    if (read.skipped) continue;
    for (const entry of read.entries!)
      count(
        learn(ctx, scoped(entry, read.row), sourcesOf(read, entry), read.row.sender_id, id, now)
          .action,
      );
  }
  const last = batch.fresh.at(-1)?.rowid;
  if (last !== undefined && last > cursor) setCursor(ctx, id, last);
}

function setCursor(ctx: BrainContext, id: string, lastId: number): void {
  ctx.q
    .get(
      `INSERT INTO extract_cursor (extractor, last_id) VALUES (?, ?)
       ON CONFLICT(extractor) DO UPDATE SET last_id = excluded.last_id`,
    )
    .run(id, lastId);
}

/** One pass of `extractor` over what it has not read (see ExtractOptions). */
export async function extractPass(
  ctx: BrainContext,
  extractor: Extractor,
  options: ExtractOptions = {},
): Promise<ExtractResult> {
  const id = extractorId(extractor);
  const result: ExtractResult = {
    extractor: id,
    read: 0,
    skipped: 0,
    added: 0,
    merged: 0,
    superseded: 0,
    failed: 0,
    errors: [],
    ...(options.dryRun ? { learned: [] } : {}),
  };
  checkExtractor(extractor);
  const args = check(extractInput, { since: options.since, limit: options.limit });
  const threads = options.threads ?? 'all';
  if (threads === 'none') return result;
  const size = Math.max(1, options.batchSize ?? 50);
  const max = args.limit ?? Infinity;
  let cursor = args.since ? cursorBefore(ctx, args.since) : cursorOf(ctx, id);
  if (args.since && !options.dryRun) setCursor(ctx, id, cursor);
  // A dry run reads past the cursor only: it leaves the queue to the passes that store.
  let done = 0;
  while (done < max && !options.signal?.aborted) {
    const now = ctx.clock().getTime();
    const batch = options.dryRun
      ? { fresh: nextBatch(ctx, cursor, size, now).fresh, again: [] }
      : nextBatch(ctx, cursor, Math.min(size, max - done), now);
    const rows = [...batch.again, ...batch.fresh].slice(0, max - done);
    if (rows.length === 0) break;
    batch.fresh = batch.fresh.filter((r) => rows.includes(r));
    const reads: Read[] = [];
    for (const row of rows) {
      if (options.signal?.aborted) break;
      if (threads === 'tagged' && !row.tagged) {
        result.skipped++;
        reads.push({ row, cites: new Map(), skipped: true });
        continue;
      }
      reads.push(await readTurn(ctx, extractor, row));
    }
    if (options.signal?.aborted) break;
    result.read += reads.filter((r) => !r.skipped).length;
    done += rows.length;
    if (options.dryRun) {
      for (const read of reads)
        if (read.entries?.length)
          result.learned!.push({ message_id: read.row.id, entries: read.entries });
        else if (read.error !== undefined) {
          result.failed++;
          result.errors.push(`${read.row.id}: ${read.error}`);
        }
    } else if (options.noWait) {
      // Counted into a copy: a batch that could not be written taught nothing yet.
      const counted = { ...result, errors: [...result.errors] };
      const write = () =>
        ctx.db.transaction(() => store(ctx, id, reads, batch, counted)).immediate();
      if (!writeWithoutWaiting(ctx.db, write)) {
        result.read -= reads.filter((r) => !r.skipped).length;
        result.busy = true;
        break;
      }
      Object.assign(result, counted);
    } else {
      ctx.db.transaction(() => store(ctx, id, reads, batch, result)).immediate();
    }
    cursor = Math.max(cursor, batch.fresh.at(-1)?.rowid ?? cursor);
    // An extractor that answers at once resolves in microtasks: without this a long pass would
    // keep a server from its requests until it ended.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return result;
}

export function extractStatus(ctx: BrainContext, extractor: Extractor | string): ExtractStatus {
  const id = typeof extractor === 'string' ? extractor : extractorId(extractor);
  const cursor = cursorOf(ctx, id);
  const unread = ctx.q
    .get<[number], { n: number }>(`SELECT count(*) AS n FROM messages WHERE id > ?`)
    .get(cursor)!.n;
  const queue = ctx.q
    .get<[], { queued: number; failed: number }>(
      `SELECT count(*) AS queued, coalesce(sum(attempts > 0), 0) AS failed FROM extract_queue`,
    )
    .get()!;
  const entries = ctx.q
    .get<[{ id: string; now: number }], { n: number }>(
      `SELECT count(*) AS n FROM stm s WHERE s.extractor = @id AND s.superseded_by IS NULL
         AND (s.expires_at IS NULL OR s.expires_at > @now)`,
    )
    .get({ id, now: ctx.clock().getTime() })!.n;
  const lastError = ctx.q
    .get<[], { last_error: string }>(
      `SELECT last_error FROM extract_queue WHERE attempts > 0 ORDER BY retry_at DESC LIMIT 1`,
    )
    .get();
  return {
    extractor: id,
    pending: unread + queue.queued,
    failed: queue.failed,
    entries,
    last_error: lastError?.last_error ?? null,
  };
}

/** Refuse an extractor whose name would not read back from `name@version`. */
export function checkExtractor(extractor: Extractor): void {
  if (!/^[a-z][a-z0-9_-]{0,63}$/.test(extractor.name) || !Number.isInteger(extractor.version))
    throw new BrainError(
      'INVALID_INPUT',
      `extractor: a name of lower-case letters, digits, _ and - and a whole version (got ${extractor.name}@${extractor.version})`,
    );
}
