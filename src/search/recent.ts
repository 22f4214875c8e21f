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

export type RecentItem =
  | { type: 'message'; id: string; time: string; record: MessageRecord }
  | { type: 'stm'; id: string; time: string; record: StmRecord }
  | { type: 'atom'; id: string; time: string; record: AtomRecord };

/** Everything of the last N hours, newest first. */
export function recent(ctx: BrainContext, input: RecentInput = {}): RecentItem[] {
  const args = check(recentInput, input);
  const sinceMs =
    args.since === undefined
      ? ctx.clock().getTime() - args.hours * 3_600_000
      : millisOf(args.since);
  // Past every time the brain holds: no upper bound.
  const untilMs = args.until === undefined ? Number.MAX_SAFE_INTEGER : millisOf(args.until);
  const want = (t: SearchType) => args.types.includes(t);
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
      .get<[number, number, number, number], Parameters<typeof toStmRecord>[0]>(
        `${STM_SELECT} WHERE s.created_at >= ? AND s.created_at < ? AND (s.expires_at IS NULL OR s.expires_at > ?) AND s.superseded_by IS NULL
         ORDER BY s.created_at DESC, s.id DESC LIMIT ?`,
      )
      .all(sinceMs, untilMs, ctx.clock().getTime(), args.limit)) {
      const record = toStmRecord(row);
      items.push({ type: 'stm', id: record.id, time: record.created_at, record });
    }
  }
  if (want('atom')) {
    for (const row of ctx.q
      .get<[number, number, number], Parameters<typeof toAtomRecord>[0]>(
        `${ATOM_SELECT} WHERE t.created_at >= ? AND t.created_at < ? ORDER BY t.created_at DESC, t.id DESC LIMIT ?`,
      )
      .all(sinceMs, untilMs, args.limit)) {
      const record = toAtomRecord(row);
      items.push({ type: 'atom', id: record.id, time: record.created_at, record });
    }
  }
  // Ties keep type order: messages, then memories, then atoms.
  return items
    .sort((a, b) => (a.time < b.time ? 1 : a.time > b.time ? -1 : 0))
    .slice(0, args.limit);
}
