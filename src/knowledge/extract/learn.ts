// Where what an extractor learned is written: as a new STM entry, as one more source of an entry
// that says the same, or as an entry that supersedes an older one about the same thing. Each
// function runs inside its caller's write transaction.
import type { BrainContext } from '../../context.js';
import { newId } from '../../ids.js';
import { addStmSource, insertStm } from '../store.js';
import type { ExtractedEntry } from './types.js';
import { contentStems, overlapF1, sameFact } from './words.js';

/** How many existing entries sharing a word with a new one are compared with it. */
const SAME_CANDIDATES = 100;

export type LearnedAction = 'added' | 'merged' | 'superseded';

export interface Learned {
  action: LearnedAction;
  /** The entry written or merged into (its row id). */
  stm: number;
  /** The entry it superseded. */
  superseded?: number;
}

export interface Current {
  rowid: number;
  content: string;
}

/** Current entries: neither superseded nor expired at `now`. */
export const CURRENT = `s.superseded_by IS NULL AND (s.expires_at IS NULL OR s.expires_at > @now)`;

/** English words too common to find a fact by (the index holds them all the same). */
const COMMON = new Set(
  (
    'the and for are but not you all any can had her was one our out day get has him his how man ' +
    'new now old see two way who boy did its let put say she too use that with have this will ' +
    'your from they know want been good much some time very when come here just like long make ' +
    'many more only over such take than them well were what also into most'
  ).split(' '),
);

/**
 * An FTS5 query that every entry saying what `content` says matches: an entry with all of its
 * words, or one with all of its own words among them (sameFact), which then holds at least two
 * thirds of them and so at least one of any n − ⌈2n/3⌉ + 1. Those are taken longest first, the
 * rarer words as a rule, so that few rows match and none is ranked.
 */
export function sameFactQuery(content: string): string | undefined {
  const words = [
    ...new Set(
      (content.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [])
        .slice(0, 64)
        .filter((w) => !COMMON.has(w)),
    ),
  ];
  if (words.length === 0) return undefined;
  const k = words.length - Math.ceil((2 * words.length) / 3) + 1;
  return words
    .sort((a, b) => b.length - a.length || (a < b ? -1 : 1))
    .slice(0, k)
    .map((w) => `"${w}"`)
    .join(' OR ');
}

/**
 * The current entries that may say what `content` says: those matching sameFactQuery, newest
 * first (a duplicate is most often of something said lately), at most `limit`.
 */
export function sameFactCandidates(
  ctx: BrainContext,
  content: string,
  now: number,
  limit = SAME_CANDIDATES,
): Current[] {
  const query = sameFactQuery(content);
  if (!query) return [];
  return ctx.q
    .get<[{ query: string; now: number; k: number }], Current>(
      `SELECT s.id AS rowid, s.content FROM stm_fts f JOIN stm s ON s.id = f.rowid
       WHERE stm_fts MATCH @query AND ${CURRENT} ORDER BY f.rowid DESC LIMIT @k`,
    )
    .all({ query, now, k: limit });
}

/** The current entry that says what `content` says, if any. */
function findSameFact(
  ctx: BrainContext,
  content: string,
  stems: ReadonlySet<string>,
  now: number,
): Current | undefined {
  let best: Current | undefined;
  let bestF1 = 0;
  for (const c of sameFactCandidates(ctx, content, now)) {
    const other = contentStems(c.content);
    if (!sameFact(stems, other)) continue;
    const f1 = overlapF1(stems, other);
    if (f1 > bestF1) [best, bestF1] = [c, f1];
  }
  return best;
}

/** The current entry about `about`, if any (the newest, should there be several). */
function currentAbout(ctx: BrainContext, about: string, now: number): Current | undefined {
  return ctx.q
    .get<[{ about: string; now: number }], Current>(
      `SELECT s.id AS rowid, s.content FROM stm s WHERE s.about = @about AND ${CURRENT}
       ORDER BY s.created_at DESC, s.id DESC LIMIT 1`,
    )
    .get({ about, now });
}

function merge(
  ctx: BrainContext,
  into: number,
  entry: ExtractedEntry,
  sources: readonly number[],
  extractor: string,
  at: number,
): Learned {
  for (const message of sources)
    addStmSource(ctx, into, { message, extractor, readFrom: sources[0]!, at });
  ctx.q
    .get(`UPDATE stm SET importance = max(importance, ?) WHERE id = ?`)
    .run(entry.importance, into);
  ctx.q
    .get(`INSERT OR IGNORE INTO stm_categories (stm_id, category) VALUES (?, ?)`)
    .run(into, entry.category);
  return { action: 'merged', stm: into };
}

/** An extractor's event time in ms; none when it gave none or no time (a model's may be anything). */
function eventMs(occurred: unknown): number | null {
  const ms = typeof occurred === 'string' ? Date.parse(occurred) : NaN;
  return Number.isFinite(ms) ? ms : null;
}

function add(
  ctx: BrainContext,
  entry: ExtractedEntry,
  sources: readonly number[],
  agentId: number,
  extractor: string,
  at: number,
): number {
  const rowid = insertStm(ctx, {
    uid: newId('stm'),
    agent_id: agentId,
    content: entry.content,
    importance: entry.importance,
    source_message_id: sources[0]!,
    created_at: at,
    expires_at: null,
    categories: [entry.category],
    extractor,
    about: entry.key ?? null,
    occurred_at: eventMs(entry.occurred_at),
  })!;
  for (const message of sources.slice(1))
    addStmSource(ctx, rowid, { message, extractor, readFrom: sources[0]!, at });
  return rowid;
}

/**
 * Store one entry `extractor` learned from `sources` (message row ids, the turn read first),
 * as `agentId`'s knowledge (the speaker's). An entry with a key supersedes the current entry of
 * that key unless both say the same; one without merges into a current entry saying the same.
 */
export function learn(
  ctx: BrainContext,
  entry: ExtractedEntry,
  sources: readonly number[],
  agentId: number,
  extractor: string,
  at: number,
): Learned {
  const stems = contentStems(entry.content);
  if (entry.key) {
    const current = currentAbout(ctx, entry.key, at);
    if (current && sameFact(stems, contentStems(current.content)))
      return merge(ctx, current.rowid, entry, sources, extractor, at);
    const rowid = add(ctx, entry, sources, agentId, extractor, at);
    if (!current) return { action: 'added', stm: rowid };
    ctx.q.get(`UPDATE stm SET superseded_by = ? WHERE id = ?`).run(rowid, current.rowid);
    return { action: 'superseded', stm: rowid, superseded: current.rowid };
  }
  const same = findSameFact(ctx, entry.content, stems, at);
  if (same) return merge(ctx, same.rowid, entry, sources, extractor, at);
  return { action: 'added', stm: add(ctx, entry, sources, agentId, extractor, at) };
}

/**
 * Drop what extractors learned by reading a message (before it is read again, once edited): the
 * sources that reading cited leave each entry; an extractor's entry left with no source lapses at
 * `at` (it is kept, not deleted, as everything in the brain). What an agent stated stays as it is.
 */
export function forgetLearnedFrom(ctx: BrainContext, messageId: number, at: number): number {
  const entries = ctx.q
    .get<[number], { stm_id: number }>(
      `SELECT DISTINCT stm_id FROM stm_sources WHERE read_from = ? AND extractor IS NOT NULL`,
    )
    .all(messageId)
    .map((r) => r.stm_id);
  if (entries.length === 0) return 0;
  ctx.q.get(`DELETE FROM stm_sources WHERE read_from = ? AND extractor IS NOT NULL`).run(messageId);
  let lapsed = 0;
  for (const stm of entries) {
    const first = ctx.q
      .get<[number], { message_id: number }>(
        `SELECT message_id FROM stm_sources WHERE stm_id = ? ORDER BY added_at, message_id LIMIT 1`,
      )
      .get(stm);
    if (first) {
      ctx.q.get(`UPDATE stm SET source_message_id = ? WHERE id = ?`).run(first.message_id, stm);
    } else {
      lapsed += ctx.q
        .get(
          `UPDATE stm SET expires_at = ? WHERE id = ? AND extractor IS NOT NULL
             AND (expires_at IS NULL OR expires_at > ?)`,
        )
        .run(at, stm, at).changes;
    }
  }
  return lapsed;
}
