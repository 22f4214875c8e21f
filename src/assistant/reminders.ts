import { z } from 'zod';
import { isoNow, isoOfMillis, millisOf } from '../clock.js';
import type { BrainContext } from '../context.js';
import { BrainError } from '../errors.js';
import { messageIdSql, messageKey } from '../ids.js';
import { isoTime, messageId, parseInput, text } from '../validation.js';
import { REMINDER_MODES } from './vocabulary.js';

/** Reminders the model set: notify sends the text at its time, prompt runs a turn with it. */

export type ReminderMode = (typeof REMINDER_MODES)[number];
export type ReminderStatus = 'pending' | 'done' | 'cancelled';

export interface ReminderRecord {
  id: number;
  text: string;
  mode: ReminderMode;
  due_at: string;
  repeat: string | null;
  time_zone: string | null;
  status: ReminderStatus;
  created_at: string;
  fired_at: string | null;
  /** It fired after its time (it came due while the service was down). */
  late: boolean;
  message_id: string | null;
  /**
   * Where the foreign content in the turn that made it came from (`tool:web_fetch, agent:nova`);
   * null when that turn had taken in none.
   */
  tainted_by: string | null;
}

const addInput = z.strictObject({
  text: text(2000).trim().min(1, 'must not be empty'),
  mode: z.enum(REMINDER_MODES).default('notify'),
  due_at: isoTime,
  repeat: text(200).min(1, 'must not be empty').optional(),
  time_zone: text(100).optional(),
  message_id: messageId.optional(),
  tainted_by: text(500).min(1, 'must not be empty').optional(),
});
export type AddReminderInput = z.input<typeof addInput>;

const SELECT = `SELECT r.id, r.text, r.mode, r.due_at, r.repeat, r.time_zone, r.status, r.created_at,
  r.fired_at, r.late, ${messageIdSql('m.uid')} AS message_id, r.tainted_by
  FROM reminders r LEFT JOIN messages m ON m.id = r.message_id`;

interface Row {
  id: number;
  text: string;
  mode: ReminderMode;
  due_at: number;
  repeat: string | null;
  time_zone: string | null;
  status: ReminderStatus;
  created_at: number;
  fired_at: number | null;
  late: number;
  message_id: string | null;
  tainted_by: string | null;
}

const toRecord = (r: Row): ReminderRecord => ({
  ...r,
  due_at: isoOfMillis(r.due_at)!,
  created_at: isoOfMillis(r.created_at)!,
  fired_at: isoOfMillis(r.fired_at),
  late: r.late === 1,
});

/** A message's row id, or NOT_FOUND naming the field. */
export function messageRow(ctx: BrainContext, id: string | undefined): number | null {
  if (id === undefined) return null;
  const row = ctx.q
    .get<[number], { id: number }>(`SELECT id FROM messages WHERE uid = ?`)
    .get(messageKey(id)!);
  if (!row) throw new BrainError('NOT_FOUND', `message_id: no message ${id}`);
  return row.id;
}

export function addReminder(ctx: BrainContext, input: AddReminderInput): ReminderRecord {
  const args = parseInput(addInput, input);
  const id = ctx.db
    .transaction(() => {
      const message = messageRow(ctx, args.message_id);
      const info = ctx.q
        .get(
          `INSERT INTO reminders (text, mode, due_at, repeat, time_zone, status, created_at, message_id,
             tainted_by)
           VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, ?)`,
        )
        .run(
          args.text,
          args.mode,
          millisOf(args.due_at),
          args.repeat ?? null,
          args.time_zone ?? null,
          millisOf(isoNow(ctx.clock)),
          message,
          args.tainted_by ?? null,
        );
      return Number(info.lastInsertRowid);
    })
    .immediate();
  return getReminder(ctx, id)!;
}

export function getReminder(ctx: BrainContext, id: number): ReminderRecord | undefined {
  const row = ctx.q.get<[number], Row>(`${SELECT} WHERE r.id = ?`).get(id);
  return row ? toRecord(row) : undefined;
}

const listInput = z.strictObject({
  /** Only those due at or before this time (the ones to fire). */
  due_by: isoTime.optional(),
  /** With the done and cancelled ones. */
  all: z.boolean().default(false),
  limit: z.coerce.number().int().min(1).max(10_000).default(100),
});
export type ListRemindersInput = z.input<typeof listInput>;

/** Pending reminders soonest first (with `all`, every reminder, newest due first). */
export function listReminders(ctx: BrainContext, input: ListRemindersInput = {}): ReminderRecord[] {
  const args = parseInput(listInput, input);
  if (args.all)
    return ctx.q
      .get<[number], Row>(`${SELECT} ORDER BY r.due_at DESC, r.id DESC LIMIT ?`)
      .all(args.limit)
      .map(toRecord);
  const dueBy = args.due_by === undefined ? Number.MAX_SAFE_INTEGER : millisOf(args.due_by);
  return ctx.q
    .get<[number, number], Row>(
      `${SELECT} WHERE r.status = 'pending' AND r.due_at <= ? ORDER BY r.due_at, r.id LIMIT ?`,
    )
    .all(dueBy, args.limit)
    .map(toRecord);
}

/** Cancel a pending reminder; NOT_FOUND when there is none, CONFLICT when it is not pending. */
export function cancelReminder(ctx: BrainContext, id: number): ReminderRecord {
  ctx.db
    .transaction(() => {
      const current = getReminder(ctx, id);
      if (!current) throw new BrainError('NOT_FOUND', `id: no reminder ${id}`);
      if (current.status !== 'pending')
        throw new BrainError('CONFLICT', `id: reminder ${id} is already ${current.status}`);
      ctx.q.get(`UPDATE reminders SET status = 'cancelled' WHERE id = ?`).run(id);
    })
    .immediate();
  return getReminder(ctx, id)!;
}

const fireInput = z.strictObject({
  id: z.number().int().positive(),
  /** The due time being fired: the claim fails when another process fired it already. */
  due_at: isoTime,
  late: z.boolean().default(false),
  /** A repeating reminder's next time; absent, the reminder is done. */
  next_due_at: isoTime.optional(),
});
export type FireReminderInput = z.input<typeof fireInput>;

/**
 * Claim a due reminder before sending it: true when this call took it (it is then done, or moved
 * to its next time), false when it was fired, moved or cancelled already.
 */
export function fireReminder(ctx: BrainContext, input: FireReminderInput): boolean {
  const args = parseInput(fireInput, input);
  const now = millisOf(isoNow(ctx.clock));
  const info = ctx.db
    .transaction(() =>
      ctx.q
        .get(
          `UPDATE reminders SET fired_at = ?, late = ?,
             status = CASE WHEN ? IS NULL THEN 'done' ELSE 'pending' END,
             due_at = coalesce(?, due_at)
           WHERE id = ? AND status = 'pending' AND due_at = ?`,
        )
        .run(
          now,
          args.late ? 1 : 0,
          args.next_due_at === undefined ? null : 1,
          args.next_due_at === undefined ? null : millisOf(args.next_due_at),
          args.id,
          millisOf(args.due_at),
        ),
    )
    .immediate();
  return info.changes === 1;
}
