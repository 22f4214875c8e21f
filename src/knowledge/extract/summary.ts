// Thread summaries: an STM entry of category `summary` whose sources are the first and the last
// message it covers, keyed `summary|<thread id>` so that a newer summary of the thread supersedes
// the older. They are made off the write path, by a pass that finds by SQL the threads that need
// one (closed or archived and not summarized up to their last message, or grown by
// SUMMARY_EVERY messages since their last summary), and on demand.
import { isoSql } from '../../clock.js';
import type { BrainContext } from '../../context.js';
import { writeWithoutWaiting } from '../../db/no-wait.js';
import { BrainError } from '../../errors.js';
import { messageIdSql, newId, threadIdSql, threadKey } from '../../ids.js';
import { check, object } from '../../input/check.js';
import { id } from '../../input/fields.js';
import { SUMMARY_CATEGORY, type ExtractThreads } from '../../vocabulary.js';
import { addStmSource, insertStm } from '../store.js';
import { EXTRACT_TAG, TURN_SELECT, toTurn, type TurnRow } from './drain.js';
import { CURRENT } from './learn.js';
import type { Summarizer } from './summary-types.js';

export type { Summarizer };

/**
 * A long thread gets a newer summary every this many messages. Each summary reads the thread
 * again, so the count bounds that work to one re-reading per 50 messages, while what a summary
 * leaves out stays short: about a screen or two of talk, which a reader takes in at a glance.
 */
export const SUMMARY_EVERY = 50;

/** How many of a thread's latest messages a summary reads: the older ones an earlier one covers. */
const MAX_TURNS = 2000;

/** A summary's importance: above a passing fact, as it stands for a whole thread. */
const SUMMARY_IMPORTANCE = 2;

export interface ThreadSummary {
  /** The STM entry (stm_…). */
  id: string;
  thread_id: string;
  content: string;
  /** The summarizer that wrote it (`name@version`). */
  extractor: string;
  created_at: string;
  /** The first and the last message it covers. */
  first_message_id: string;
  last_message_id: string;
  /** How many of the thread's messages it covers. */
  messages: number;
}

export interface SummaryPassOptions {
  threads?: ExtractThreads;
  /** Summarize at most this many threads (all that need it when not given). */
  limit?: number;
  /** Never wait for the write lock (see ExtractOptions.noWait). */
  noWait?: boolean;
  signal?: AbortSignal;
}

export interface SummaryPassResult {
  summarizer: string;
  /** Threads summarized. */
  summarized: number;
  /** Failures, one line each (the thread is tried again by the next pass). */
  errors: string[];
  /** With `noWait`: stopped because another connection held the write lock. */
  busy?: boolean;
}

/** The summarizer the brain uses: the offline one, its code loaded when asked for. */
export async function createSummarizer(): Promise<Summarizer> {
  return (await import('./summary-offline.js')).createOfflineSummarizer();
}

export function summaryKey(threadId: string): string {
  return `summary|${threadId}`;
}

function summarizerId(summarizer: Pick<Summarizer, 'name' | 'version'>): string {
  return `${summarizer.name}@${summarizer.version}`;
}

/** The row id of the last message of `thread` (a row id in SQL), by time then id. */
const LAST_OF_THREAD = (thread: string) =>
  `(SELECT m.id FROM messages m WHERE m.thread_id = ${thread} ORDER BY m.created_at DESC, m.id DESC LIMIT 1)`;

interface SummaryRow extends Omit<ThreadSummary, 'messages'> {
  rowid: number;
  thread_rowid: number;
  last_rowid: number;
}

const SUMMARY_SELECT = `
  SELECT s.id AS rowid, s.uid AS id, s.content, s.extractor, ${isoSql('s.created_at')} AS created_at,
         f.thread_id AS thread_rowid, l.id AS last_rowid,
         ${messageIdSql('f.uid')} AS first_message_id, ${messageIdSql('l.uid')} AS last_message_id
  FROM stm s
  JOIN messages f ON f.id = s.source_message_id
  JOIN messages l ON l.id = (
    SELECT m.id FROM stm_sources src JOIN messages m ON m.id = src.message_id
    WHERE src.stm_id = s.id ORDER BY m.created_at DESC, m.id DESC LIMIT 1)`;

function toSummary(ctx: BrainContext, threadId: string, row: SummaryRow): ThreadSummary {
  const messages = ctx.q
    .get<[{ thread: number; last: number }], { n: number }>(
      `SELECT count(*) AS n FROM messages m, messages l
       WHERE l.id = @last AND m.thread_id = @thread
         AND (m.created_at < l.created_at OR (m.created_at = l.created_at AND m.id <= l.id))`,
    )
    .get({ thread: row.thread_rowid, last: row.last_rowid })!.n;
  return {
    id: row.id,
    thread_id: threadId,
    content: row.content,
    extractor: row.extractor,
    created_at: row.created_at,
    first_message_id: row.first_message_id,
    last_message_id: row.last_message_id,
    messages,
  };
}

/** The current summary of a thread by its public id, the newest should there be several. */
function currentSummary(ctx: BrainContext, threadId: string): ThreadSummary | undefined {
  const row = ctx.q
    .get<[{ about: string; now: number }], SummaryRow>(
      `${SUMMARY_SELECT} WHERE s.about = @about AND ${CURRENT}
       ORDER BY s.created_at DESC, s.id DESC LIMIT 1`,
    )
    .get({ about: summaryKey(threadId), now: ctx.clock().getTime() });
  return row ? toSummary(ctx, threadId, row) : undefined;
}

const threadInput = object({ thread_id: id('thread') });

interface ThreadRow {
  rowid: number;
  id: string;
  created_by: number;
}

function findThread(ctx: BrainContext, threadId: string): ThreadRow {
  const args = check(threadInput, { thread_id: threadId });
  const row = ctx.q
    .get<[Buffer], ThreadRow>(
      `SELECT id AS rowid, ${threadIdSql('uid')} AS id, created_by FROM threads WHERE uid = ?`,
    )
    .get(threadKey(args.thread_id)!);
  if (!row) throw new BrainError('NOT_FOUND', `thread_id: no thread ${args.thread_id}`);
  return row;
}

/** The latest current summary of a thread, or undefined (none yet, or no such thread). */
export function threadSummary(ctx: BrainContext, threadId: string): ThreadSummary | undefined {
  const thread = check(threadInput, { thread_id: threadId }).thread_id;
  const key = threadKey(thread);
  const row = ctx.q
    .get<[Buffer], { id: string }>(`SELECT ${threadIdSql('uid')} AS id FROM threads WHERE uid = ?`)
    .get(key!);
  return row ? currentSummary(ctx, row.id) : undefined;
}

/** A thread's latest turns, oldest first. */
function threadTurns(ctx: BrainContext, thread: number): TurnRow[] {
  return ctx.q
    .get<[{ thread: number; n: number }], TurnRow>(
      `${TURN_SELECT} WHERE m.thread_id = @thread ORDER BY m.created_at DESC, m.id DESC LIMIT @n`,
    )
    .all({ thread, n: MAX_TURNS })
    .reverse();
}

/**
 * Store `content` as the summary of `thread` covering `first`..`last` (message row ids), the
 * current one superseded. When the current one already covers `last` with the same words it is
 * kept as it is (another process summarized the thread meanwhile, or nothing changed).
 */
function store(
  ctx: BrainContext,
  thread: ThreadRow,
  content: string,
  first: TurnRow,
  last: TurnRow,
  extractor: string,
): void {
  const now = ctx.clock().getTime();
  const about = summaryKey(thread.id);
  const current = ctx.q
    .get<
      [{ about: string; now: number; last: number; content: string }],
      { rowid: number; covers: number; same: number }
    >(
      `SELECT s.id AS rowid, s.content = @content AS same,
              EXISTS (SELECT 1 FROM stm_sources WHERE stm_id = s.id AND message_id = @last) AS covers
       FROM stm s WHERE s.about = @about AND ${CURRENT} ORDER BY s.created_at DESC, s.id DESC LIMIT 1`,
    )
    .get({ about, now, last: last.rowid, content });
  if (current?.covers && current.same) return;
  const rowid = insertStm(ctx, {
    uid: newId('stm'),
    agent_id: thread.created_by,
    content,
    importance: SUMMARY_IMPORTANCE,
    source_message_id: first.rowid,
    created_at: now,
    expires_at: null,
    categories: [SUMMARY_CATEGORY],
    extractor,
    about,
  })!;
  // Read from the last message: when it is edited, the summary loses it and is made again.
  if (last.rowid !== first.rowid)
    addStmSource(ctx, rowid, { message: last.rowid, extractor, readFrom: last.rowid, at: now });
  if (current) ctx.q.get(`UPDATE stm SET superseded_by = ? WHERE id = ?`).run(rowid, current.rowid);
}

/**
 * Summarize one thread now and store the summary (see store); the summary, or undefined when the
 * thread has no words to summarize, or when `noWait` and the write lock was taken (`busy`).
 */
async function summarizeRow(
  ctx: BrainContext,
  thread: ThreadRow,
  summarizer: Summarizer,
  noWait: boolean,
): Promise<{ summary?: ThreadSummary; busy?: boolean }> {
  const rows = threadTurns(ctx, thread.rowid);
  const first = rows[0];
  const last = rows.at(-1);
  if (!first || !last) return {};
  const content = (await summarizer.summarize(rows.map((r) => toTurn(ctx, r)))).trim();
  if (!content) return {};
  const write = () =>
    ctx.db
      .transaction(() => store(ctx, thread, content, first, last, summarizerId(summarizer)))
      .immediate();
  if (!noWait) write();
  else if (!writeWithoutWaiting(ctx.db, write)) return { busy: true };
  return { summary: currentSummary(ctx, thread.id) };
}

/** Summarize a thread now (by its public id) and store it; its summary, or undefined (no words). */
export async function summarizeThread(
  ctx: BrainContext,
  threadId: string,
  summarizer: Summarizer,
): Promise<ThreadSummary | undefined> {
  const thread = findThread(ctx, threadId);
  return (await summarizeRow(ctx, thread, summarizer, false)).summary;
}

/**
 * Threads that need a summary, by SQL alone: closed or archived ones whose last message no current
 * summary cites, and those with SUMMARY_EVERY messages or more after the last message of their
 * current summary (or in all, with none).
 */
function threadsToSummarize(ctx: BrainContext, threads: ExtractThreads, n: number): ThreadRow[] {
  const tagged =
    threads === 'tagged'
      ? `AND EXISTS (SELECT 1 FROM thread_tags g WHERE g.thread_id = t.id AND g.tag = '${EXTRACT_TAG}')`
      : '';
  const select = `SELECT t.id AS rowid, ${threadIdSql('t.uid')} AS id, t.created_by FROM threads t`;
  const params = { now: ctx.clock().getTime(), n, every: SUMMARY_EVERY };
  const ended = ctx.q
    .get<[typeof params], ThreadRow>(
      `${select} WHERE t.status IN ('closed', 'archived') AND t.message_count > 0 ${tagged}
         AND NOT EXISTS (
           SELECT 1 FROM stm_sources src JOIN stm s ON s.id = src.stm_id
           WHERE src.message_id = ${LAST_OF_THREAD('t.id')}
             AND substr(s.about, 1, 8) = 'summary|' AND ${CURRENT})
       LIMIT @n`,
    )
    .all(params);
  if (ended.length >= n) return ended;
  // message_count only grows, so a thread under SUMMARY_EVERY messages is passed over at once;
  // the others count their messages after the last one summarized, stopping at SUMMARY_EVERY.
  const grown = ctx.q
    .get<[typeof params], ThreadRow>(
      `${select} WHERE t.message_count >= @every ${tagged}
         AND (SELECT count(*) FROM (
           SELECT 1 FROM messages m WHERE m.thread_id = t.id AND m.created_at > coalesce((
             SELECT max(l.created_at) FROM stm s JOIN stm_sources src ON src.stm_id = s.id
             JOIN messages l ON l.id = src.message_id
             WHERE s.about = 'summary|' || ${threadIdSql('t.uid')} AND ${CURRENT}), -1)
           LIMIT @every)) >= @every
       LIMIT @n`,
    )
    .all(params);
  const seen = new Set(ended.map((t) => t.rowid));
  return [...ended, ...grown.filter((t) => !seen.has(t.rowid))].slice(0, n);
}

/** Summarize the threads that need it (see threadsToSummarize), at most `limit` of them. */
export async function summaryPass(
  ctx: BrainContext,
  summarizer: Summarizer,
  options: SummaryPassOptions = {},
): Promise<SummaryPassResult> {
  const result: SummaryPassResult = {
    summarizer: summarizerId(summarizer),
    summarized: 0,
    errors: [],
  };
  const threads = options.threads ?? 'all';
  if (threads === 'none') return result;
  const limit = Math.max(1, options.limit ?? Infinity);
  // A thread whose summary failed or had no words stays a candidate: it is not asked for again
  // in the same pass.
  const tried = new Set<number>();
  while (result.summarized < limit && !options.signal?.aborted) {
    const batch = threadsToSummarize(ctx, threads, Math.min(limit, 20) + tried.size).filter(
      (t) => !tried.has(t.rowid),
    );
    if (batch.length === 0) break;
    for (const thread of batch) {
      if (options.signal?.aborted || result.summarized >= limit) break;
      tried.add(thread.rowid);
      try {
        const done = await summarizeRow(ctx, thread, summarizer, options.noWait ?? false);
        if (done.busy) return { ...result, busy: true };
        if (done.summary) result.summarized++;
      } catch (err) {
        result.errors.push(`${thread.id}: ${(err as Error).message}`);
      }
    }
  }
  return result;
}
