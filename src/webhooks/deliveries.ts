import { isoOfMillis } from '../clock.js';
import type { BrainContext } from '../context.js';
import { BrainError } from '../errors.js';
import { messageIdSql, threadIdSql } from '../ids.js';
import type { Webhook, WebhookEvent } from './config.js';

// The webhook queue: events noticed past the high-water marks become one delivery per hook, and
// each attempt's outcome is written back. Every write is a short immediate transaction; no POST
// is made inside one.

export type DeliveryStatus = 'pending' | 'delivered' | 'dead';

export interface DeliveryRecord {
  /** `whd_<n>`: what `brain webhooks replay` takes. */
  id: string;
  hook: string;
  event: WebhookEvent;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string | null;
  /** The receiver's last HTTP status; null when none answered. */
  last_code: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
}

/** A queued delivery as the worker posts it. */
export interface DueDelivery {
  rowid: number;
  hook: string;
  payload: string;
  attempts: number;
}

type Source = 'messages' | 'stm' | 'atoms' | 'thread_closures';
const SOURCES: readonly Source[] = ['messages', 'stm', 'atoms', 'thread_closures'];
const BATCH = 500;
const MENTION = /(?:^|[^\w@])@([A-Za-z0-9][\w.-]{0,63})/g;

export function deliveryId(rowid: number): string {
  return `whd_${rowid}`;
}

function deliveryRow(id: string): number {
  const match = /^whd_(\d{1,15})$/.exec(id);
  if (!match) throw new BrainError('INVALID_INPUT', `id: must be a delivery id (whd_…), got ${id}`);
  return Number(match[1]);
}

interface MessageRow {
  rowid: number;
  id: string;
  thread_id: string;
  from: string;
  recipients: string;
  body: string;
  created_at: number;
}

interface Event {
  event: WebhookEvent;
  /** Whose event it is, for a hook's `agents` filter: recipients, the mentioned, the learner. */
  agents: string[];
  data: Record<string, unknown>;
  /** The message body, put in the payload only for hooks that ask for bodies. */
  body?: string;
  at: number;
}

/**
 * Queue the events since each hook's marks; a hook's first call starts its marks at the newest
 * rows, so history is not posted. Returns how many deliveries it queued. Marks are per hook, so
 * servers with different hooks on one brain each tell their own; two servers with the same hook
 * (`brain serve` and `brain agent` reading one config) queue each event once: the marks are
 * checked again inside the transaction that moves them.
 */
export function queueEvents(ctx: BrainContext, hooks: readonly Webhook[]): number {
  let queued = 0;
  for (const hook of hooks) queued += queueFor(ctx, hook);
  return queued;
}

function marksOf(ctx: BrainContext, hook: string): Map<Source, number> {
  return new Map(
    ctx.q
      .get<[string], { source: Source; last_id: number }>(
        `SELECT source, last_id FROM webhook_marks WHERE hook = ?`,
      )
      .all(hook)
      .map((r) => [r.source, r.last_id]),
  );
}

function queueFor(ctx: BrainContext, hook: Webhook): number {
  const { db, q } = ctx;
  const marks = marksOf(ctx, hook.name);
  const maxOf = (s: Source) =>
    q.get<[], { n: number }>(`SELECT coalesce(max(id), 0) AS n FROM ${s}`).get()!.n;
  const wanted = new Set(hook.events);
  const events: Event[] = [];
  const next = new Map<Source, number>();
  for (const source of SOURCES) {
    const mark = marks.get(source);
    if (mark === undefined) {
      next.set(source, maxOf(source));
      continue;
    }
    let last = mark;
    if (source === 'messages' && (wanted.has('message') || wanted.has('mention'))) {
      const rows = messagesAfter(ctx, mark);
      const known =
        rows.length === 0
          ? new Set<string>()
          : new Set(
              q
                .get<[], { name: string }>(`SELECT name FROM agents`)
                .all()
                .map((a) => a.name),
            );
      for (const m of rows) {
        last = m.rowid;
        const base = { message_id: m.id, thread_id: m.thread_id, from: m.from };
        const to = JSON.parse(m.recipients) as string[];
        if (to.length > 0)
          events.push({
            event: 'message',
            agents: to,
            data: { ...base, to },
            body: m.body,
            at: m.created_at,
          });
        const mentioned = [...m.body.matchAll(MENTION)]
          .map((x) => x[1]!)
          .filter((name, i, all) => known.has(name) && name !== m.from && all.indexOf(name) === i);
        if (mentioned.length > 0)
          events.push({
            event: 'mention',
            agents: mentioned,
            data: { ...base, mentioned },
            body: m.body,
            at: m.created_at,
          });
      }
    } else if ((source === 'stm' || source === 'atoms') && wanted.has('knowledge')) {
      for (const k of knowledgeAfter(ctx, source, mark)) {
        last = k.rowid;
        events.push({
          event: 'knowledge',
          agents: [k.agent],
          data: {
            type: source === 'stm' ? 'stm' : 'atom',
            id: k.id,
            agent: k.agent,
            source_message_id: k.source_message_id,
            thread_id: k.thread_id,
          },
          at: k.created_at,
        });
      }
    } else if (source === 'thread_closures' && wanted.has('thread.closed')) {
      for (const c of closuresAfter(ctx, mark)) {
        last = c.rowid;
        events.push({
          event: 'thread.closed',
          agents: [],
          data: { thread_id: c.thread_id },
          at: c.at,
        });
      }
    } else {
      // The hook does not listen for this source: move the mark on, so that adding the event
      // to the hook later starts from then.
      last = maxOf(source);
    }
    if (last !== mark) next.set(source, last);
  }
  if (next.size === 0) return 0;
  const now = ctx.clock().getTime();
  const insert = q.get(
    `INSERT INTO webhook_deliveries (hook, event, payload, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?)`,
  );
  const setMark = q.get(
    `INSERT INTO webhook_marks (hook, source, last_id) VALUES (?, ?, ?)
     ON CONFLICT (hook, source) DO UPDATE SET last_id = excluded.last_id`,
  );
  return db
    .transaction(() => {
      // Another server queued these events since the marks were read: it has them.
      const current = marksOf(ctx, hook.name);
      if (current.size !== marks.size || [...marks].some(([k, v]) => current.get(k) !== v))
        return 0;
      let queued = 0;
      for (const e of events) {
        if (!hook.events.includes(e.event)) continue;
        if (
          hook.agents &&
          e.event !== 'thread.closed' &&
          !e.agents.some((a) => hook.agents!.includes(a))
        )
          continue;
        const data =
          hook.includeBodies && e.body !== undefined ? { ...e.data, body: e.body } : e.data;
        const payload = JSON.stringify({ event: e.event, occurred_at: isoOfMillis(e.at), data });
        insert.run(hook.name, e.event, payload, now, now);
        queued++;
      }
      for (const [source, last] of next) setMark.run(hook.name, source, last);
      return queued;
    })
    .immediate();
}

function messagesAfter(ctx: BrainContext, rowid: number): MessageRow[] {
  return ctx.q
    .get<[number, number], MessageRow>(
      `SELECT m.id AS rowid, ${messageIdSql('m.uid')} AS id, ${threadIdSql('t.uid')} AS thread_id,
              a.name AS "from", m.body, m.created_at,
              (SELECT json_group_array(r.name) FROM deliveries d JOIN agents r ON r.id = d.agent_id
               WHERE d.message_id = m.id) AS recipients
       FROM messages m JOIN threads t ON t.id = m.thread_id JOIN agents a ON a.id = m.from_agent
       WHERE m.id > ? ORDER BY m.id LIMIT ?`,
    )
    .all(rowid, BATCH);
}

function knowledgeAfter(ctx: BrainContext, table: 'stm' | 'atoms', rowid: number) {
  return ctx.q
    .get<
      [number, number],
      {
        rowid: number;
        id: string;
        agent: string;
        source_message_id: string | null;
        thread_id: string | null;
        created_at: number;
      }
    >(
      `SELECT x.id AS rowid, x.uid AS id, a.name AS agent, x.created_at,
              ${messageIdSql('m.uid')} AS source_message_id, ${threadIdSql('t.uid')} AS thread_id
       FROM ${table} x JOIN agents a ON a.id = x.agent_id
       LEFT JOIN messages m ON m.id = x.source_message_id LEFT JOIN threads t ON t.id = m.thread_id
       WHERE x.id > ? ORDER BY x.id LIMIT ?`,
    )
    .all(rowid, BATCH);
}

function closuresAfter(ctx: BrainContext, rowid: number) {
  return ctx.q
    .get<[number, number], { rowid: number; thread_id: string; at: number }>(
      `SELECT c.id AS rowid, ${threadIdSql('t.uid')} AS thread_id, c.closed_at AS at
       FROM thread_closures c JOIN threads t ON t.id = c.thread_id
       WHERE c.id > ? ORDER BY c.id LIMIT ?`,
    )
    .all(rowid, BATCH);
}

/**
 * Take up to `limit` pending deliveries of `hooks` whose time has come, oldest first: each is
 * claimed for `leaseMs` (its next attempt moved past the POST's timeout), so another server with
 * the same hook does not post it too.
 */
export function claimDue(
  ctx: BrainContext,
  hooks: readonly string[],
  limit: number,
  leaseMs: number,
): DueDelivery[] {
  if (hooks.length === 0) return [];
  const now = ctx.clock().getTime();
  const select = ctx.q.get<[number, string, number], DueDelivery>(
    `SELECT id AS rowid, hook, payload, attempts FROM webhook_deliveries
     WHERE status = 'pending' AND next_attempt_at <= ? AND hook IN (SELECT value FROM json_each(?))
     ORDER BY next_attempt_at, id LIMIT ?`,
  );
  const names = JSON.stringify(hooks);
  // Most ticks find nothing due: that look takes no lock.
  if (select.all(now, names, limit).length === 0) return [];
  const lease = ctx.q.get(`UPDATE webhook_deliveries SET next_attempt_at = ? WHERE id = ?`);
  return ctx.db
    .transaction(() => {
      const due = select.all(now, names, limit);
      for (const d of due) lease.run(now + leaseMs, d.rowid);
      return due;
    })
    .immediate();
}

/** Write an attempt's outcome: delivered, again at `retryAt`, or dead (retryAt null). */
export function recordAttempt(
  ctx: BrainContext,
  rowid: number,
  outcome: { ok: boolean; code: number | null; error: string | null; retryAt: number | null },
): void {
  const now = ctx.clock().getTime();
  const status: DeliveryStatus = outcome.ok
    ? 'delivered'
    : outcome.retryAt === null
      ? 'dead'
      : 'pending';
  ctx.db
    .transaction(() =>
      ctx.q
        .get(
          `UPDATE webhook_deliveries SET status = ?, attempts = attempts + 1, next_attempt_at = ?,
             last_code = ?, last_error = ?, delivered_at = ? WHERE id = ?`,
        )
        .run(
          status,
          status === 'pending' ? outcome.retryAt : null,
          outcome.code,
          outcome.error,
          outcome.ok ? now : null,
          rowid,
        ),
    )
    .immediate();
}

export interface ListDeliveriesInput {
  status?: DeliveryStatus | undefined;
  hook?: string | undefined;
  limit?: number | undefined;
}

interface ListRow extends Omit<
  DeliveryRecord,
  'id' | 'next_attempt_at' | 'created_at' | 'delivered_at'
> {
  rowid: number;
  next_attempt_at: number | null;
  created_at: number;
  delivered_at: number | null;
}

/** Deliveries, newest first; `status: 'dead'` is the dead-letter list. */
export function listDeliveries(
  ctx: BrainContext,
  input: ListDeliveriesInput = {},
): DeliveryRecord[] {
  const limit = input.limit ?? 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
    throw new BrainError(
      'INVALID_INPUT',
      `limit: must be a whole number from 1 to 1000, got ${limit}`,
    );
  return ctx.q
    .get<[{ status: string | null; hook: string | null; limit: number }], ListRow>(
      `SELECT id AS rowid, hook, event, status, attempts, next_attempt_at, last_code, last_error,
              created_at, delivered_at
       FROM webhook_deliveries WHERE (@status IS NULL OR status = @status) AND (@hook IS NULL OR hook = @hook)
       ORDER BY id DESC LIMIT @limit`,
    )
    .all({ status: input.status ?? null, hook: input.hook ?? null, limit })
    .map(toRecord);
}

/**
 * Queue a delivery again, now, with its attempts counted afresh: a dead letter once the receiver
 * is mended, or a delivered one the receiver lost. The payload is the one first queued.
 */
export function replayDelivery(ctx: BrainContext, id: string): DeliveryRecord {
  const rowid = deliveryRow(id);
  const now = ctx.clock().getTime();
  const changed = ctx.db
    .transaction(
      () =>
        ctx.q
          .get(
            `UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = ?,
               last_error = NULL, last_code = NULL, delivered_at = NULL WHERE id = ?`,
          )
          .run(now, rowid).changes,
    )
    .immediate();
  if (changed === 0) throw new BrainError('NOT_FOUND', `id: no webhook delivery ${id}`);
  return oneDelivery(ctx, rowid);
}

function oneDelivery(ctx: BrainContext, rowid: number): DeliveryRecord {
  return toRecord(
    ctx.q
      .get<[number], ListRow>(
        `SELECT id AS rowid, hook, event, status, attempts, next_attempt_at, last_code, last_error,
                created_at, delivered_at FROM webhook_deliveries WHERE id = ?`,
      )
      .get(rowid)!,
  );
}

function toRecord({ rowid, ...r }: ListRow): DeliveryRecord {
  return {
    id: deliveryId(rowid),
    ...r,
    next_attempt_at: isoOfMillis(r.next_attempt_at),
    created_at: isoOfMillis(r.created_at)!,
    delivered_at: isoOfMillis(r.delivered_at),
  };
}
