// Reflection: the brain going over what it learned since it last did. It merges entries that say
// the same (what extraction could not see: two agents stating one fact, or one stated before it
// was extracted), raises what keeps coming back, lets stale extracted entries lapse, and proposes
// to follow up commitments and to-dos that were never mentioned again. It acts on nothing
// outside the brain: a proposal is for the owner to take or leave. Every change is recorded with
// its reason and the fields as they were, and can be undone.
import { isoOfMillis } from '../../clock.js';
import type { BrainContext } from '../../context.js';
import { BrainError } from '../../errors.js';
import { addStmSource } from '../store.js';
import { CURRENT, sameFactQuery } from './learn.js';
import { contentStems, sameFact } from './words.js';

/** An entry cited by this many messages or more has kept coming back: it is worth more. */
export const RECURRING_SOURCES = 3;
/** How much importance a recurring entry gains, once (importance stays within 1–3). */
const RECURRING_GAIN = 0.5;
/** Extracted entries of low importance that nobody read lapse after this long. */
export const STALE_AFTER_DAYS = 90;
/** A commitment or to-do not mentioned again for this long is proposed for a follow-up. */
export const FOLLOW_UP_AFTER_DAYS = 3;
/** Entries older than this are past following up. */
const FOLLOW_UP_WITHIN_DAYS = 30;
/** How many newly learned entries one reflection goes over (the rest wait for the next). */
const MAX_CONSIDERED = 2_000;

const DAY_MS = 86_400_000;

export type ChangeKind = 'merge' | 'importance' | 'expire' | 'propose';

export interface KnowledgeChange {
  id: number;
  kind: ChangeKind;
  /** The entry changed (stm_…). */
  stm: string;
  /** merge: the entry it was merged into. */
  into: string | null;
  reason: string;
  at: string;
  undone_at: string | null;
}

export interface FollowUp {
  stm: string;
  content: string;
  /** When it was said. */
  said_at: string;
  /** Who said it. */
  agent: string;
}

export interface ReflectOptions {
  /** Go over it and report, change nothing. */
  dryRun?: boolean;
}

export interface ReflectResult {
  /** Entries learned since the reflection before. */
  considered: number;
  merged: number;
  raised: number;
  expired: number;
  follow_ups: FollowUp[];
  changes: KnowledgeChange[];
}

interface EntryRow {
  rowid: number;
  uid: string;
  content: string;
  importance: number;
  created_at: number;
}

/** Thrown inside a dry run's transaction to roll it back once its result is known. */
class DryRun extends Error {
  constructor(readonly result: ReflectResult) {
    super('dry run');
  }
}

function record(
  ctx: BrainContext,
  run: number,
  change: { kind: ChangeKind; stm: number; other?: number; reason: string; before: unknown },
): void {
  ctx.q
    .get(
      `INSERT INTO knowledge_changes (reflection_id, kind, stm_id, other_id, reason, before)
       VALUES (?, ?, ?, ?, ?, ?)`,
    )
    .run(
      run,
      change.kind,
      change.stm,
      change.other ?? null,
      change.reason,
      JSON.stringify(change.before),
    );
}

/** The older current entry that says what `entry` says, if any. */
function olderSame(ctx: BrainContext, entry: EntryRow, now: number): EntryRow | undefined {
  const query = sameFactQuery(entry.content);
  if (!query) return undefined;
  const stems = contentStems(entry.content);
  const candidates = ctx.q
    .get<[{ query: string; now: number; id: number; at: number }], EntryRow>(
      `SELECT s.id AS rowid, s.uid, s.content, s.importance, s.created_at
       FROM stm_fts f JOIN stm s ON s.id = f.rowid
       WHERE stm_fts MATCH @query AND ${CURRENT} AND s.id != @id
         AND (s.created_at < @at OR (s.created_at = @at AND s.id < @id))
       ORDER BY f.rowid DESC LIMIT 100`,
    )
    .all({ query, now, id: entry.rowid, at: entry.created_at });
  return candidates.find((c) => sameFact(stems, contentStems(c.content)));
}

function merge(ctx: BrainContext, run: number, entry: EntryRow, into: EntryRow, now: number): void {
  const sources = ctx.q
    .get<[number], { message_id: number; extractor: string | null; read_from: number | null }>(
      `SELECT message_id, extractor, read_from FROM stm_sources WHERE stm_id = ?`,
    )
    .all(entry.rowid);
  const added = sources
    .filter((s) =>
      addStmSource(ctx, into.rowid, {
        message: s.message_id,
        extractor: s.extractor,
        readFrom: s.read_from,
        at: now,
      }),
    )
    .map((s) => s.message_id);
  ctx.q
    .get(`UPDATE stm SET importance = max(importance, ?) WHERE id = ?`)
    .run(entry.importance, into.rowid);
  ctx.q.get(`UPDATE stm SET superseded_by = ? WHERE id = ?`).run(into.rowid, entry.rowid);
  record(ctx, run, {
    kind: 'merge',
    stm: entry.rowid,
    other: into.rowid,
    reason: `says what ${into.uid} says`,
    before: { into_importance: into.importance, sources_added: added },
  });
}

function reflectNow(ctx: BrainContext, now: number): ReflectResult {
  const last = ctx.q
    .get<[], { started_at: number; last_stm_id: number }>(
      `SELECT started_at, last_stm_id FROM reflections ORDER BY id DESC LIMIT 1`,
    )
    .get();
  const run = Number(
    ctx.q
      .get(
        `INSERT INTO reflections (started_at, last_stm_id, considered, changes) VALUES (?, ?, 0, 0)`,
      )
      .run(now, last?.last_stm_id ?? 0).lastInsertRowid,
  );
  const result: ReflectResult = {
    considered: 0,
    merged: 0,
    raised: 0,
    expired: 0,
    follow_ups: [],
    changes: [],
  };

  // 1. What was learned since: each merged into an older entry saying the same.
  const recent = ctx.q
    .get<[{ after: number; now: number; n: number }], EntryRow>(
      `SELECT s.id AS rowid, s.uid, s.content, s.importance, s.created_at FROM stm s
       WHERE s.id > @after AND ${CURRENT} ORDER BY s.id LIMIT @n`,
    )
    .all({ after: last?.last_stm_id ?? 0, now, n: MAX_CONSIDERED });
  result.considered = recent.length;
  // The next reflection starts after the newest entry this one went over; when there were more
  // than it takes, after the last it took.
  const lastConsidered =
    recent.length === MAX_CONSIDERED
      ? recent.at(-1)!.rowid
      : (ctx.q.get<[], { id: number | null }>(`SELECT max(id) AS id FROM stm`).get()?.id ?? 0);
  for (const entry of recent) {
    const into = olderSame(ctx, entry, now);
    if (!into) continue;
    merge(ctx, run, entry, into, now);
    result.merged++;
  }

  // 2. What keeps coming back: cited by several messages, some of them new since last time.
  const recurring = ctx.q
    .get<[{ n: number; since: number; now: number }], EntryRow>(
      `SELECT s.id AS rowid, s.uid, s.content, s.importance, s.created_at FROM stm s
       WHERE ${CURRENT} AND s.importance < 3
         AND (SELECT count(*) FROM stm_sources WHERE stm_id = s.id) >= @n
         AND EXISTS (SELECT 1 FROM stm_sources WHERE stm_id = s.id AND added_at >= @since)
         AND NOT EXISTS (SELECT 1 FROM knowledge_changes c
                         WHERE c.stm_id = s.id AND c.kind = 'importance' AND c.undone_at IS NULL)`,
    )
    .all({ n: RECURRING_SOURCES, since: last?.started_at ?? 0, now });
  for (const entry of recurring) {
    const raised = Math.min(3, entry.importance + RECURRING_GAIN);
    ctx.q.get(`UPDATE stm SET importance = ? WHERE id = ?`).run(raised, entry.rowid);
    record(ctx, run, {
      kind: 'importance',
      stm: entry.rowid,
      reason: `cited by ${RECURRING_SOURCES} or more messages`,
      before: { importance: entry.importance },
    });
    result.raised++;
  }

  // 3. Stale extracted entries: low importance, never read, old. What agents stated stays.
  const stale = ctx.q
    .get<[{ before: number; now: number }], EntryRow>(
      `SELECT s.id AS rowid, s.uid, s.content, s.importance, s.created_at FROM stm s
       WHERE ${CURRENT} AND s.extractor IS NOT NULL AND s.importance <= 1.5
         AND s.access_count = 0 AND s.expires_at IS NULL AND s.created_at < @before`,
    )
    .all({ before: now - STALE_AFTER_DAYS * DAY_MS, now });
  for (const entry of stale) {
    ctx.q.get(`UPDATE stm SET expires_at = ? WHERE id = ?`).run(now, entry.rowid);
    record(ctx, run, {
      kind: 'expire',
      stm: entry.rowid,
      reason: `learned more than ${STALE_AFTER_DAYS} days ago, of low importance, never read`,
      before: { expires_at: null },
    });
    result.expired++;
  }

  // 4. Commitments and to-dos said days ago and not proposed before: for the owner to follow up.
  const due = ctx.q
    .get<[{ from: number; to: number; now: number }], EntryRow & { agent: string }>(
      `SELECT s.id AS rowid, s.uid, s.content, s.importance, s.created_at, a.name AS agent
       FROM stm s JOIN agents a ON a.id = s.agent_id
       WHERE ${CURRENT} AND s.created_at BETWEEN @from AND @to
         AND s.id IN (SELECT stm_id FROM stm_categories WHERE category IN ('commitment', 'todo'))
         AND NOT EXISTS (SELECT 1 FROM knowledge_changes c WHERE c.stm_id = s.id AND c.kind = 'propose')
       ORDER BY s.importance DESC, s.created_at LIMIT 20`,
    )
    .all({
      from: now - FOLLOW_UP_WITHIN_DAYS * DAY_MS,
      to: now - FOLLOW_UP_AFTER_DAYS * DAY_MS,
      now,
    });
  for (const entry of due) {
    record(ctx, run, {
      kind: 'propose',
      stm: entry.rowid,
      reason: `a ${FOLLOW_UP_AFTER_DAYS}-day-old commitment or to-do not followed up`,
      before: {},
    });
    result.follow_ups.push({
      stm: entry.uid,
      content: entry.content,
      said_at: isoOfMillis(entry.created_at)!,
      agent: entry.agent,
    });
  }

  result.changes = listChanges(ctx, { reflection: run });
  ctx.q
    .get(`UPDATE reflections SET last_stm_id = ?, considered = ?, changes = ? WHERE id = ?`)
    .run(lastConsidered, result.considered, result.changes.length, run);
  return result;
}

/** Go over what was learned since the last reflection (see the top of this file). */
export function reflect(ctx: BrainContext, options: ReflectOptions = {}): ReflectResult {
  const now = ctx.clock().getTime();
  try {
    return ctx.db
      .transaction(() => {
        const result = reflectNow(ctx, now);
        if (options.dryRun) throw new DryRun(result);
        return result;
      })
      .immediate();
  } catch (err) {
    if (err instanceof DryRun) return err.result;
    throw err;
  }
}

const CHANGE_SELECT = `
  SELECT c.id, c.kind, s.uid AS stm, o.uid AS "into", c.reason,
         r.started_at AS at, c.undone_at
  FROM knowledge_changes c JOIN reflections r ON r.id = c.reflection_id
  JOIN stm s ON s.id = c.stm_id LEFT JOIN stm o ON o.id = c.other_id`;

interface ChangeRow extends Omit<KnowledgeChange, 'at' | 'undone_at'> {
  at: number;
  undone_at: number | null;
}

function toChange(row: ChangeRow): KnowledgeChange {
  return { ...row, at: isoOfMillis(row.at)!, undone_at: isoOfMillis(row.undone_at) };
}

/** Reflection's changes, newest first (or one run's, in order). */
export function listChanges(
  ctx: BrainContext,
  options: { reflection?: number; limit?: number } = {},
): KnowledgeChange[] {
  const rows =
    options.reflection === undefined
      ? ctx.q
          .get<[number], ChangeRow>(`${CHANGE_SELECT} ORDER BY c.id DESC LIMIT ?`)
          .all(options.limit ?? 50)
      : ctx.q
          .get<[number], ChangeRow>(`${CHANGE_SELECT} WHERE c.reflection_id = ? ORDER BY c.id`)
          .all(options.reflection);
  return rows.map(toChange);
}

/** Put back what a change altered. NOT_FOUND for no such change; CONFLICT once undone. */
export function undoChange(ctx: BrainContext, id: number): KnowledgeChange {
  if (!Number.isInteger(id) || id < 1)
    throw new BrainError('INVALID_INPUT', 'id: must be a change number, as brain reflect lists');
  return ctx.db
    .transaction(() => {
      const change = ctx.q
        .get<
          [number],
          {
            kind: ChangeKind;
            stm_id: number;
            other_id: number | null;
            before: string;
            undone_at: number | null;
          }
        >(`SELECT kind, stm_id, other_id, before, undone_at FROM knowledge_changes WHERE id = ?`)
        .get(id);
      if (!change) throw new BrainError('NOT_FOUND', `id: no change ${id}`);
      if (change.undone_at !== null)
        throw new BrainError('CONFLICT', `change ${id} was undone already`);
      const before = JSON.parse(change.before) as Record<string, unknown>;
      if (change.kind === 'merge') {
        const into = change.other_id!;
        for (const message of before.sources_added as number[])
          ctx.q
            .get(`DELETE FROM stm_sources WHERE stm_id = ? AND message_id = ?`)
            .run(into, message);
        ctx.q.get(`UPDATE stm SET importance = ? WHERE id = ?`).run(before.into_importance, into);
        ctx.q.get(`UPDATE stm SET superseded_by = NULL WHERE id = ?`).run(change.stm_id);
      } else if (change.kind === 'importance') {
        ctx.q
          .get(`UPDATE stm SET importance = ? WHERE id = ?`)
          .run(before.importance, change.stm_id);
      } else if (change.kind === 'expire') {
        ctx.q.get(`UPDATE stm SET expires_at = NULL WHERE id = ?`).run(change.stm_id);
      }
      ctx.q
        .get(`UPDATE knowledge_changes SET undone_at = ? WHERE id = ?`)
        .run(ctx.clock().getTime(), id);
      return toChange(ctx.q.get<[number], ChangeRow>(`${CHANGE_SELECT} WHERE c.id = ?`).get(id)!);
    })
    .immediate();
}
