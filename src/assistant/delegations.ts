import { z } from 'zod';
import { isoNow, isoOfMillis, millisOf } from '../clock.js';
import type { BrainContext } from '../context.js';
import { BrainError } from '../errors.js';
import { messageIdSql } from '../ids.js';
import { messageId, parseInput, text } from '../validation.js';
import { ownerState, thisProcess } from './owner-process.js';
import { messageRow } from './reminders.js';

/**
 * Tasks the assistant delegated to sub-turns: one row from start to end, so that what runs can be
 * listed by any process (`/status`, `brain ui`). A row left `running` by a process that ended
 * reads as `interrupted`.
 */

export const DELEGATION_STATUSES = ['running', 'done', 'failed', 'cancelled', 'budget'] as const;
export type DelegationStatus = (typeof DELEGATION_STATUSES)[number];

export interface DelegationRecord {
  id: number;
  /** The session `task/<id>` runs in is named in agent/conversation/sessions.ts. */
  session: string;
  message_id: string | null;
  task: string;
  tools: string[];
  wait: boolean;
  depth: number;
  status: DelegationStatus | 'interrupted';
  started_at: string;
  ended_at: string | null;
  result: string | null;
  tainted_by: string | null;
}

const startInput = z.strictObject({
  session: text(200).min(1, 'must not be empty'),
  message_id: messageId.optional(),
  task: text(20_000).trim().min(1, 'must not be empty'),
  tools: z.array(text(200)).max(1000),
  wait: z.boolean(),
  depth: z.number().int().min(1).max(100),
  tainted_by: text(500).min(1, 'must not be empty').optional(),
});
export type StartDelegationInput = z.input<typeof startInput>;

const finishInput = z.strictObject({
  id: z.number().int().positive(),
  status: z.enum(['done', 'failed', 'cancelled', 'budget']),
  result: text(20_000),
});
export type FinishDelegationInput = z.input<typeof finishInput>;

const listInput = z.strictObject({
  running: z.boolean().default(false),
  limit: z.coerce.number().int().min(1).max(1000).default(50),
});
export type ListDelegationsInput = z.input<typeof listInput>;

const SELECT = `SELECT d.id, d.session, ${messageIdSql('m.uid')} AS message_id, d.task, d.tools,
  d.wait, d.depth, d.status, d.started_at, d.ended_at, d.result, d.tainted_by, d.pid, d.host
  FROM delegated_tasks d LEFT JOIN messages m ON m.id = d.message_id`;

interface Row {
  id: number;
  session: string;
  message_id: string | null;
  task: string;
  tools: string;
  wait: number;
  depth: number;
  status: DelegationStatus;
  started_at: number;
  ended_at: number | null;
  result: string | null;
  tainted_by: string | null;
  pid: number | null;
  host: string | null;
}

const toRecord = (r: Row): DelegationRecord => ({
  id: r.id,
  session: r.session,
  message_id: r.message_id,
  task: r.task,
  tools: JSON.parse(r.tools) as string[],
  wait: r.wait === 1,
  depth: r.depth,
  status:
    r.status === 'running' && ownerState(r.pid, r.host, r.started_at) === 'gone'
      ? 'interrupted'
      : r.status,
  started_at: isoOfMillis(r.started_at)!,
  ended_at: isoOfMillis(r.ended_at),
  result: r.result,
  tainted_by: r.tainted_by,
});

/** A task starts: its row, `running`, owned by this process. */
export function startDelegation(ctx: BrainContext, input: StartDelegationInput): DelegationRecord {
  const args = parseInput(startInput, input);
  const id = ctx.db
    .transaction(() => {
      const message = messageRow(ctx, args.message_id);
      const info = ctx.q
        .get(
          `INSERT INTO delegated_tasks (session, message_id, task, tools, wait, depth, status,
             started_at, tainted_by, pid, host)
           VALUES (?, ?, ?, ?, ?, ?, 'running', ?, ?, ?, ?)`,
        )
        .run(
          args.session,
          message,
          args.task,
          JSON.stringify(args.tools),
          args.wait ? 1 : 0,
          args.depth,
          millisOf(isoNow(ctx.clock)),
          args.tainted_by ?? null,
          ...thisProcess(),
        );
      return Number(info.lastInsertRowid);
    })
    .immediate();
  return getDelegation(ctx, id)!;
}

/** A task ends; CONFLICT when it had ended already, NOT_FOUND when there is none. */
export function finishDelegation(
  ctx: BrainContext,
  input: FinishDelegationInput,
): DelegationRecord {
  const args = parseInput(finishInput, input);
  ctx.db
    .transaction(() => {
      const current = ctx.q
        .get<[number], { status: string }>(`SELECT status FROM delegated_tasks WHERE id = ?`)
        .get(args.id);
      if (!current) throw new BrainError('NOT_FOUND', `id: no delegated task ${args.id}`);
      if (current.status !== 'running')
        throw new BrainError('CONFLICT', `id: delegated task ${args.id} has ended already`);
      ctx.q
        .get(`UPDATE delegated_tasks SET status = ?, result = ?, ended_at = ? WHERE id = ?`)
        .run(args.status, args.result, millisOf(isoNow(ctx.clock)), args.id);
    })
    .immediate();
  return getDelegation(ctx, args.id)!;
}

export function getDelegation(ctx: BrainContext, id: number): DelegationRecord | undefined {
  const row = ctx.q.get<[number], Row>(`${SELECT} WHERE d.id = ?`).get(id);
  return row ? toRecord(row) : undefined;
}

/** Delegated tasks, newest first; with `running`, only those still under way. */
export function listDelegations(
  ctx: BrainContext,
  input: ListDelegationsInput = {},
): DelegationRecord[] {
  const args = parseInput(listInput, input);
  const rows = args.running
    ? ctx.q
        .get<[number], Row>(
          `${SELECT} WHERE d.status = 'running' ORDER BY d.started_at DESC, d.id DESC LIMIT ?`,
        )
        .all(args.limit)
    : ctx.q.get<[number], Row>(`${SELECT} ORDER BY d.id DESC LIMIT ?`).all(args.limit);
  const records = rows.map(toRecord);
  return args.running ? records.filter((r) => r.status === 'running') : records;
}
