import { isoOfMillis } from '../clock.js';
import type { BrainContext } from '../context.js';
import { writeWithoutWaiting } from '../db/no-wait.js';
import { threadIdSql, threadKey } from '../ids.js';

// Retention archives and closes idle threads; it never deletes. An archived thread stays in
// search and in listings (`status` filters it out when asked); a message sent into it makes it
// active again. Both limits count days since the thread's last message.

/** Days of idleness before each step; null: never (a tag's way to keep its threads). */
export interface RetentionLimits {
  /** Archive an active thread idle this many days. */
  archiveAfterDays?: number | null | undefined;
  /** Close an archived thread idle this many days. */
  closeArchivedAfterDays?: number | null | undefined;
}

/** `retention` in the config (retention-config.ts checks it): global limits, and per thread tag. */
export interface RetentionPolicy extends RetentionLimits {
  tags?: Record<string, RetentionLimits> | undefined;
}

export type RetentionAction = 'archive' | 'close';

export interface RetentionStep {
  action: RetentionAction;
  thread_id: string;
  subject: string;
  last_message_at: string;
  /** When the policy takes the step: in the past for what is due now. */
  due_at: string;
  /** The tag whose limit applies, or null for the global one. */
  tag: string | null;
}

export interface RetentionPlan {
  /** Steps due now, oldest first. */
  due: RetentionStep[];
  /** Steps due within `horizonDays`, soonest first. */
  upcoming: RetentionStep[];
}

const DAY_MS = 86_400_000;
const PLAN_ROWS = 1000;

interface Candidate {
  rowid: number;
  id: string;
  subject: string;
  status: 'active' | 'archived';
  last_message_at: number;
  tags: string;
}

/** The limit that applies to a thread for `action`: the longest of its tags', else the global. */
function limitFor(
  policy: RetentionPolicy,
  tags: readonly string[],
  action: RetentionAction,
): { days: number; tag: string | null } | undefined {
  const key = action === 'archive' ? 'archiveAfterDays' : 'closeArchivedAfterDays';
  let chosen: { days: number; tag: string | null } | undefined;
  let tagged = false;
  for (const tag of tags) {
    const rule = policy.tags?.[tag];
    if (!rule || rule[key] === undefined) continue;
    tagged = true;
    // A tag that says never (null) keeps its threads, whatever other tags say.
    const limit = rule[key];
    if (limit === null) return undefined;
    if (!chosen || limit > chosen.days) chosen = { days: limit, tag };
  }
  if (tagged) return chosen;
  const global = policy[key];
  return global === null || global === undefined ? undefined : { days: global, tag: null };
}

/** The shortest limit anywhere in the policy for `action`: no thread is due before it. */
function shortest(policy: RetentionPolicy, action: RetentionAction): number | undefined {
  const key = action === 'archive' ? 'archiveAfterDays' : 'closeArchivedAfterDays';
  const all = [policy[key], ...Object.values(policy.tags ?? {}).map((t) => t[key])].filter(
    (d): d is number => typeof d === 'number',
  );
  return all.length === 0 ? undefined : Math.min(...all);
}

/** What the policy does now and within `horizonDays`, by the brain's clock; reads only. */
export function planRetention(
  ctx: BrainContext,
  policy: RetentionPolicy,
  horizonDays = 7,
): RetentionPlan {
  const now = ctx.clock().getTime();
  const due: RetentionStep[] = [];
  const upcoming: RetentionStep[] = [];
  for (const action of ['archive', 'close'] as const) {
    const min = shortest(policy, action);
    if (min === undefined) continue;
    const before = now + horizonDays * DAY_MS - min * DAY_MS;
    for (const row of candidates(ctx, action === 'archive' ? 'active' : 'archived', before)) {
      const tags = JSON.parse(row.tags) as string[];
      const limit = limitFor(policy, tags, action);
      if (!limit) continue;
      const at = row.last_message_at + limit.days * DAY_MS;
      const step: RetentionStep = {
        action,
        thread_id: row.id,
        subject: row.subject,
        last_message_at: isoOfMillis(row.last_message_at)!,
        due_at: isoOfMillis(at)!,
        tag: limit.tag,
      };
      if (at <= now) due.push(step);
      else if (at <= now + horizonDays * DAY_MS) upcoming.push(step);
    }
  }
  upcoming.sort((a, b) => a.due_at.localeCompare(b.due_at));
  return { due, upcoming };
}

function candidates(ctx: BrainContext, status: 'active' | 'archived', before: number): Candidate[] {
  // threads_by_status (status, last_message_at) gives the idle ones without reading the rest.
  return ctx.q
    .get<[string, number, number], Candidate>(
      `SELECT t.id AS rowid, ${threadIdSql('t.uid')} AS id, t.subject, t.status, t.last_message_at,
              (SELECT json_group_array(tag) FROM thread_tags g WHERE g.thread_id = t.id) AS tags
       FROM threads t WHERE t.status = ? AND t.last_message_at <= ?
       ORDER BY t.last_message_at LIMIT ?`,
    )
    .all(status, before, PLAN_ROWS);
}

export interface RetentionResult {
  archived: number;
  closed: number;
  /** Another writer held the lock: the rest waits for the next round. */
  busy: boolean;
}

/**
 * Take the steps due now, never waiting for the write lock. A thread that received a message
 * since the plan was read is left alone (its last message time no longer matches).
 */
export function applyRetention(ctx: BrainContext, policy: RetentionPolicy): RetentionResult {
  const { due } = planRetention(ctx, policy, 0);
  const result: RetentionResult = { archived: 0, closed: 0, busy: false };
  if (due.length === 0) return result;
  const update = ctx.q.get(
    `UPDATE threads SET status = ?
     WHERE uid = ? AND status = ? AND last_message_at = ?`,
  );
  const done = writeWithoutWaiting(ctx.db, () => {
    ctx.db
      .transaction(() => {
        for (const step of due) {
          const [to, from] =
            step.action === 'archive' ? ['archived', 'active'] : ['closed', 'archived'];
          const changed = update.run(
            to,
            threadKey(step.thread_id),
            from,
            Date.parse(step.last_message_at),
          ).changes;
          if (changed > 0) result[step.action === 'archive' ? 'archived' : 'closed']++;
        }
      })
      .immediate();
  });
  if (!done) return { archived: 0, closed: 0, busy: true };
  return result;
}
