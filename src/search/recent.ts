import type { BrainContext } from '../context.js';
import { ATOM_SELECT, toAtomRecord, type AtomRecord } from '../knowledge/atoms.js';
import { STM_SELECT, toStmRecord, type StmRecord } from '../knowledge/stm.js';
import {
  MESSAGE_SELECT,
  toMessageRecord,
  type MessageRecord,
  type MessageRow,
} from '../messaging/messages.js';
import { check } from '../input/check.js';
import { millisOf } from '../clock.js';
import type { SearchType } from '../vocabulary.js';
import { recentInput, type RecentInput } from './input.js';

export { recentInput, type RecentInput } from './input.js';

/** Which of a knowledge item's times fell in the window: its event time or its record time. */
type Matched = { matched_time: 'occurred' | 'recorded' };

export type RecentItem =
  | { type: 'message'; id: string; time: string; record: MessageRecord }
  | ({ type: 'stm'; id: string; time: string; record: StmRecord } & Matched)
  | ({ type: 'atom'; id: string; time: string; record: AtomRecord } & Matched);

/**
 * Everything of the last N hours (or of a window), newest first. Knowledge counts when it was
 * learned then or when what it says happened then (its event time, when known).
 */
export function recent(ctx: BrainContext, input: RecentInput = {}): RecentItem[] {
  const args = check(recentInput, input);
  const sinceMs =
    args.since === undefined
      ? ctx.clock().getTime() - args.hours * 3_600_000
      : millisOf(args.since);
  // Past every time the brain holds: no upper bound.
  const untilMs = args.until === undefined ? Number.MAX_SAFE_INTEGER : millisOf(args.until);
  const want = (t: SearchType) => args.types.includes(t);
  const matched = (occurred: string | null): Matched => {
    const ms = occurred === null ? undefined : millisOf(occurred);
    const inside = ms !== undefined && ms >= sinceMs && ms < untilMs;
    return { matched_time: inside ? 'occurred' : 'recorded' };
  };
  const window = { since: sinceMs, until: untilMs, limit: args.limit };
  const items: RecentItem[] = [];
  if (want('message')) {
    for (const row of ctx.q
      .get<[number, number, number], MessageRow>(
        `${MESSAGE_SELECT} WHERE m.created_at >= ? AND m.created_at < ? ORDER BY m.created_at DESC, m.id DESC LIMIT ?`,
      )
      .all(sinceMs, untilMs, args.limit)) {
      const record = toMessageRecord(row);
      items.push({ type: 'message', id: record.id, time: record.created_at, record });
    }
  }
  if (want('stm')) {
    for (const row of ctx.q
      .get<[typeof window & { now: number }], Parameters<typeof toStmRecord>[0]>(
        `${STM_SELECT} WHERE ${inWindow('s')} AND (s.expires_at IS NULL OR s.expires_at > @now) AND s.superseded_by IS NULL
         ORDER BY s.created_at DESC, s.id DESC LIMIT @limit`,
      )
      .all({ ...window, now: ctx.clock().getTime() })) {
      const record = toStmRecord(row);
      const time = record.created_at;
      items.push({ type: 'stm', id: record.id, time, record, ...matched(record.occurred_at) });
    }
  }
  if (want('atom')) {
    for (const row of ctx.q
      .get<[typeof window], Parameters<typeof toAtomRecord>[0]>(
        `${ATOM_SELECT} WHERE ${inWindow('t')} ORDER BY t.created_at DESC, t.id DESC LIMIT @limit`,
      )
      .all(window)) {
      const record = toAtomRecord(row);
      const time = record.created_at;
      items.push({ type: 'atom', id: record.id, time, record, ...matched(record.occurred_at) });
    }
  }
  // Ties keep type order: messages, then memories, then atoms.
  return items
    .sort((a, b) => (a.time < b.time ? 1 : a.time > b.time ? -1 : 0))
    .slice(0, args.limit);
}

/** Learned in the window, or happened in it (each through its own index). */
function inWindow(x: string): string {
  return `((${x}.created_at >= @since AND ${x}.created_at < @until)
    OR (${x}.occurred_at >= @since AND ${x}.occurred_at < @until))`;
}
