import { z } from 'zod';
import { isoNow, isoOfMillis, millisOf } from '../clock.js';
import type { BrainContext } from '../context.js';
import { BrainError } from '../errors.js';
import { messageIdSql } from '../ids.js';
import { isoTime, messageId, parseInput, text } from '../validation.js';
import { messageRow } from './reminders.js';
import { TASK_PRIORITIES } from './vocabulary.js';

/** The owner's tasks, each pointing back to the message that asked for it. */

export type TaskPriority = (typeof TASK_PRIORITIES)[number];

export interface TaskRecord {
  id: number;
  title: string;
  priority: TaskPriority;
  due_at: string | null;
  status: 'pending' | 'done';
  created_at: string;
  completed_at: string | null;
  message_id: string | null;
  /**
   * Where the foreign content in the turn that made it came from (`tool:web_fetch, agent:nova`);
   * null when that turn had taken in none.
   */
  tainted_by: string | null;
}

const addInput = z.strictObject({
  title: text(500).trim().min(1, 'must not be empty'),
  priority: z.enum(TASK_PRIORITIES).default('normal'),
  due_at: isoTime.optional(),
  message_id: messageId.optional(),
  tainted_by: text(500).min(1, 'must not be empty').optional(),
});
export type AddTaskInput = z.input<typeof addInput>;

const SELECT = `SELECT t.id, t.title, t.priority, t.due_at, t.status, t.created_at, t.completed_at,
  ${messageIdSql('m.uid')} AS message_id, t.tainted_by
  FROM tasks t LEFT JOIN messages m ON m.id = t.message_id`;

type Row = Omit<TaskRecord, 'due_at' | 'created_at' | 'completed_at'> & {
  due_at: number | null;
  created_at: number;
  completed_at: number | null;
};

const toRecord = (r: Row): TaskRecord => ({
  ...r,
  due_at: isoOfMillis(r.due_at),
  created_at: isoOfMillis(r.created_at)!,
  completed_at: isoOfMillis(r.completed_at),
});

export function addTask(ctx: BrainContext, input: AddTaskInput): TaskRecord {
  const args = parseInput(addInput, input);
  const id = ctx.db
    .transaction(() => {
      const message = messageRow(ctx, args.message_id);
      const info = ctx.q
        .get(
          `INSERT INTO tasks (title, priority, due_at, status, created_at, message_id, tainted_by)
           VALUES (?, ?, ?, 'pending', ?, ?, ?)`,
        )
        .run(
          args.title,
          args.priority,
          args.due_at === undefined ? null : millisOf(args.due_at),
          millisOf(isoNow(ctx.clock)),
          message,
          args.tainted_by ?? null,
        );
      return Number(info.lastInsertRowid);
    })
    .immediate();
  return getTask(ctx, id)!;
}

export function getTask(ctx: BrainContext, id: number): TaskRecord | undefined {
  const row = ctx.q.get<[number], Row>(`${SELECT} WHERE t.id = ?`).get(id);
  return row ? toRecord(row) : undefined;
}

const listInput = z.strictObject({
  status: z.enum(['pending', 'done', 'all']).default('pending'),
  limit: z.coerce.number().int().min(1).max(10_000).default(100),
});
export type ListTasksInput = z.input<typeof listInput>;

/** Tasks: the pending ones by due time (undated last), then priority; done ones newest first. */
export function listTasks(ctx: BrainContext, input: ListTasksInput = {}): TaskRecord[] {
  const args = parseInput(listInput, input);
  const where = args.status === 'all' ? '' : `WHERE t.status = '${args.status}'`;
  return ctx.q
    .get<[number], Row>(
      `${SELECT} ${where}
       ORDER BY t.status DESC, t.due_at IS NULL, t.due_at,
         CASE t.priority WHEN 'high' THEN 0 WHEN 'normal' THEN 1 ELSE 2 END, t.id
       LIMIT ?`,
    )
    .all(args.limit)
    .map(toRecord);
}

/** Mark a task done; NOT_FOUND when there is none, CONFLICT when it is done already. */
export function completeTask(ctx: BrainContext, id: number): TaskRecord {
  ctx.db
    .transaction(() => {
      const current = getTask(ctx, id);
      if (!current) throw new BrainError('NOT_FOUND', `id: no task ${id}`);
      if (current.status === 'done')
        throw new BrainError('CONFLICT', `id: task ${id} is already done`);
      ctx.q
        .get(`UPDATE tasks SET status = 'done', completed_at = ? WHERE id = ?`)
        .run(millisOf(isoNow(ctx.clock)), id);
    })
    .immediate();
  return getTask(ctx, id)!;
}
