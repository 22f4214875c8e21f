import { z } from 'zod';
import { isoNow, isoOfMillis, millisOf } from '../clock.js';
import type { BrainContext } from '../context.js';
import { BrainError } from '../errors.js';
import { messageIdSql, messageKey } from '../ids.js';
import { messageId, parseInput, text } from '../validation.js';
import { NO_OWNER, ownerState, thisProcess } from './owner-process.js';
import { cutVisibly } from './shown.js';
import {
  APPROVAL_DECIDERS,
  APPROVAL_DECISIONS,
  RULE_PATTERN_MAX,
  RUN_COMMAND,
  argsDigest,
  commandRulePattern,
  fieldOf,
  isInterpreter,
  parseCommandRule,
  readApprovalRule,
  type ApprovalDecider,
  type ApprovalDecision,
} from './vocabulary.js';

export {
  APPROVAL_DECIDERS,
  APPROVAL_DECISIONS,
  RULE_PATTERN_MAX,
  argsDigest,
  commandRulePattern,
  isInterpreter,
  parseCommandRule,
  readApprovalRule,
  type ApprovalDecider,
  type ApprovalDecision,
};

const toolName = text(200).min(1, 'must not be empty');

/** The most of a recorded text kept; beyond it the text is cut where the cut shows. */
export const SUMMARY_MAX = 4000;
const REASON_MAX = 1000;

/** Recorded text: never refused for its length or its characters, cut visibly instead. */
const shownText = (max: number) => z.string().transform((s) => cutVisibly(s, max));

const recordInput = z.strictObject({
  tool: toolName,
  /** The call's arguments: only their digest is stored. */
  args: z.unknown(),
  /** What the owner was shown of the call (agent/permissions/describe.ts). */
  summary: shownText(SUMMARY_MAX).default(''),
  decision: z.enum(APPROVAL_DECISIONS),
  /** Required unless the decision is pending. */
  decided_by: z.enum(APPROVAL_DECIDERS).optional(),
  reason: shownText(REASON_MAX).default(''),
  session: text(200).optional(),
  message_id: messageId.optional(),
});
export type RecordApprovalInput = z.input<typeof recordInput>;

const settleInput = z.strictObject({
  id: z.number().int().min(1),
  decision: z.enum(['approved', 'denied', 'timeout']),
  decided_by: z.enum(APPROVAL_DECIDERS),
  reason: shownText(REASON_MAX).optional(),
});
export type SettleApprovalInput = z.input<typeof settleInput>;

export interface ApprovalRecord {
  id: number;
  tool: string;
  args_digest: string;
  summary: string;
  decision: ApprovalDecision;
  decided_by: ApprovalDecider | null;
  reason: string;
  session: string | null;
  message_id: string | null;
  asked_at: string;
  decided_at: string | null;
}

interface ApprovalRow extends Omit<ApprovalRecord, 'asked_at' | 'decided_at'> {
  asked_at: number;
  decided_at: number | null;
}

const SELECT_APPROVALS = `SELECT a.id, a.tool, a.args_digest, a.summary, a.decision, a.decided_by,
    a.reason, a.session, ${messageIdSql('m.uid')} AS message_id, a.asked_at, a.decided_at
  FROM approvals a LEFT JOIN messages m ON m.id = a.message_id`;

const toRecord = (r: ApprovalRow): ApprovalRecord => ({
  ...r,
  asked_at: isoOfMillis(r.asked_at)!,
  decided_at: isoOfMillis(r.decided_at),
});

/** Record a decision on a tool call (a pending one while the owner is asked); its id. */
export function recordApproval(ctx: BrainContext, input: RecordApprovalInput): ApprovalRecord {
  const args = parseInput(recordInput, input);
  if (args.decision !== 'pending' && !args.decided_by) {
    throw new BrainError('INVALID_INPUT', 'decided_by: required unless the decision is pending');
  }
  const now = millisOf(isoNow(ctx.clock));
  const id = ctx.db
    .transaction(() => {
      let message: number | null = null;
      if (args.message_id) {
        const row = ctx.q
          .get<[number], { id: number }>(`SELECT id FROM messages WHERE uid = ?`)
          .get(messageKey(args.message_id)!);
        if (!row) throw new BrainError('NOT_FOUND', `message_id: no message ${args.message_id}`);
        message = row.id;
      }
      const pending = args.decision === 'pending';
      return ctx.q
        .get(
          `INSERT INTO approvals (tool, args_digest, summary, decision, decided_by, reason, session,
             message_id, asked_at, decided_at, pid, host)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          args.tool,
          argsDigest(args.args),
          args.summary,
          args.decision,
          pending ? null : args.decided_by!,
          args.reason,
          args.session ?? null,
          message,
          now,
          pending ? null : now,
          // A pending ask is waited on by this process: once it is gone, nobody will settle it.
          ...(pending ? thisProcess() : NO_OWNER),
        ).lastInsertRowid;
    })
    .immediate();
  return getApproval(ctx, Number(id))!;
}

/** Settle a pending ask with the owner's answer (or its absence); NOT_FOUND unless pending. */
export function settleApproval(ctx: BrainContext, input: SettleApprovalInput): ApprovalRecord {
  const args = parseInput(settleInput, input);
  if (!settlePending(ctx, args))
    throw new BrainError('NOT_FOUND', `id: no pending approval ${args.id}`);
  return getApproval(ctx, args.id)!;
}

/** What became of a decision offered on an ask: whether it was the one taken, and the row after. */
export interface DecidedApproval {
  /** True when this decision settled the ask; false when another had settled it first. */
  settled: boolean;
  record: ApprovalRecord;
}

/**
 * Settle an ask if it is still pending: the first decision wins (a conditional UPDATE in one
 * transaction), so a decision on the channel and one recorded elsewhere (brain ui) cannot both
 * take effect. The caller acts on `record.decision`, whichever decision that is.
 */
export function decideApproval(ctx: BrainContext, input: SettleApprovalInput): DecidedApproval {
  const args = parseInput(settleInput, input);
  const settled = settlePending(ctx, args);
  const record = getApproval(ctx, args.id);
  if (!record) throw new BrainError('NOT_FOUND', `id: no approval ${args.id}`);
  return { settled, record };
}

/** Settle the ask if it is still pending, in one transaction; whether this call settled it. */
function settlePending(ctx: BrainContext, args: z.output<typeof settleInput>): boolean {
  const now = millisOf(isoNow(ctx.clock));
  const changed = ctx.db
    .transaction(
      () =>
        ctx.q
          .get(
            `UPDATE approvals SET decision = ?, decided_by = ?, reason = coalesce(?, reason),
               decided_at = ? WHERE id = ? AND decision = 'pending'`,
          )
          .run(args.decision, args.decided_by, args.reason ?? null, now, args.id).changes,
    )
    .immediate();
  return changed === 1;
}

const answerInput = z.strictObject({
  id: z.number().int().min(1),
  decision: z.enum(['approved', 'denied']),
  reason: shownText(REASON_MAX).optional(),
});
export type AnswerApprovalInput = z.input<typeof answerInput>;

/** How a settled ask reads to the owner: "it timed out at …", "it was approved by the owner at …". */
function settledText(r: ApprovalRecord): string {
  const at = r.decided_at ?? r.asked_at;
  if (r.decision === 'timeout') return `it timed out at ${at}`;
  if (r.decision === 'denied' && /cancelled/.test(r.reason))
    return `its turn was cancelled at ${at}`;
  return `it was ${r.decision} by ${r.decided_by ?? 'nobody known'} at ${at}`;
}

/**
 * The owner's answer to a pending ask, given outside the process that asked (brain ui): recorded
 * only while the ask still waits, and taken by that process's gate, which watches its row
 * (waitApprovalDecision). CONFLICT when the ask no longer waits (it timed out, was answered or
 * cancelled; the row keeps what happened), or when the process that asked is known to have
 * ended: nobody would act on the answer, so the ask is settled as timed out, as brain doctor
 * --repair would. NOT_FOUND when there is no such ask.
 */
export function answerApproval(ctx: BrainContext, input: AnswerApprovalInput): ApprovalRecord {
  const args = parseInput(answerInput, input);
  const row = ctx.q
    .get<[number], { pid: number | null; host: string | null; asked_at: number; decision: string }>(
      `SELECT pid, host, asked_at, decision FROM approvals WHERE id = ?`,
    )
    .get(args.id);
  if (!row) throw new BrainError('NOT_FOUND', `id: no approval ${args.id}`);
  if (row.decision === 'pending' && ownerState(row.pid, row.host, row.asked_at) === 'gone') {
    const ended = decideApproval(ctx, {
      id: args.id,
      decision: 'timeout',
      decided_by: 'owner',
      reason: `no answer: its process ${row.pid} on this host has ended`,
    });
    if (ended.settled)
      throw new BrainError(
        'CONFLICT',
        `this question is no longer waiting: the process that asked it (${row.pid}) has ended, so it is recorded as timed out`,
      );
  }
  const decided = decideApproval(ctx, {
    id: args.id,
    decision: args.decision,
    decided_by: 'owner',
    ...(args.reason !== undefined ? { reason: args.reason } : {}),
  });
  if (!decided.settled)
    throw new BrainError(
      'CONFLICT',
      `this question is no longer waiting: ${settledText(decided.record)}`,
    );
  return decided.record;
}

/** How often a waiting ask looks at its row (through the global timers: fake ones drive it). */
const APPROVAL_POLL_MS = 250;

/**
 * Resolve with an ask's row once it is no longer pending, whoever settled it (this connection,
 * another one, another process); undefined when `signal` aborts first. Each tick reads
 * `data_version` and this connection's change count in one prepared statement, and reads the row
 * only when either moved: a few microseconds every quarter second while an ask waits.
 */
export function waitApprovalDecision(
  ctx: BrainContext,
  id: number,
  options: { signal: AbortSignal; intervalMs?: number },
): Promise<ApprovalRecord | undefined> {
  const { signal } = options;
  const intervalMs = options.intervalMs ?? APPROVAL_POLL_MS;
  const mark = () => {
    const m = ctx.q
      .get<[], { v: number; c: number }>(
        `SELECT (SELECT data_version FROM pragma_data_version) AS v, total_changes() AS c`,
      )
      .get()!;
    return `${m.v}:${m.c}`;
  };
  return new Promise((resolve, reject) => {
    if (signal.aborted) return resolve(undefined);
    let last = '';
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = (value: ApprovalRecord | undefined) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(value);
    };
    const onAbort = () => finish(undefined);
    const look = () => {
      try {
        if (!ctx.db.open) return finish(undefined);
        const now = mark();
        if (now !== last) {
          last = now;
          const record = getApproval(ctx, id);
          if (!record || record.decision !== 'pending') return finish(record);
        }
        timer = setTimeout(look, intervalMs);
        timer.unref?.();
      } catch (err) {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        reject(err as Error);
      }
    };
    signal.addEventListener('abort', onAbort, { once: true });
    look();
  });
}

export function getApproval(ctx: BrainContext, id: number): ApprovalRecord | undefined {
  const row = ctx.q.get<[number], ApprovalRow>(`${SELECT_APPROVALS} WHERE a.id = ?`).get(id);
  return row ? toRecord(row) : undefined;
}

const listInput = z.strictObject({
  pending: z.boolean().default(false),
  limit: z.number().int().min(1).max(10_000).default(50),
});
export type ListApprovalsInput = z.input<typeof listInput>;

/** Decisions, newest first; only the asks still waiting with `pending`. */
export function listApprovals(ctx: BrainContext, input: ListApprovalsInput = {}): ApprovalRecord[] {
  const args = parseInput(listInput, input);
  const where = args.pending ? `WHERE a.decision = 'pending'` : '';
  return ctx.q
    .get<[number], ApprovalRow>(`${SELECT_APPROVALS} ${where} ORDER BY a.id DESC LIMIT ?`)
    .all(args.limit)
    .map(toRecord);
}

export interface ApprovalRule {
  id: number;
  tool: string;
  /** What the rule stores (see readApprovalRule for its forms). */
  pattern: string;
  created_at: string;
  /** Whether it allows anything: a rule stored in an old, wider form matches nothing. */
  active: boolean;
  /** What it matches, as the owner reads it (`git log --oneline -5 (exactly)`, `path a.md`). */
  matches: string;
}

const ruleInput = z.strictObject({
  tool: toolName,
  /** The exact call it allows, in one of the forms readApprovalRule reads. */
  pattern: text(RULE_PATTERN_MAX).min(1, 'must not be empty'),
});
export type AddRuleInput = z.input<typeof ruleInput>;

/**
 * Store an "always allow" rule (idempotent: an existing identical rule is returned). Only the
 * current forms are stored (readApprovalRule); a run_command rule must name a plain program
 * (no path) that does not run whatever it is given.
 */
export function addApprovalRule(ctx: BrainContext, input: AddRuleInput): ApprovalRule {
  const args = parseInput(ruleInput, input);
  if (args.tool === RUN_COMMAND) {
    const command = parseCommandRule(args.pattern);
    if (!command)
      throw new BrainError(
        'INVALID_INPUT',
        'pattern: must be one exact command (`exactly <words>`, optionally after `in <dir>`)',
      );
    const program = command.argv[0]!;
    if (!/^[A-Za-z0-9][A-Za-z0-9._+-]*$/.test(program)) {
      throw new BrainError('INVALID_INPUT', `pattern: "${program}" is not a plain program name`);
    }
    if (isInterpreter(program)) {
      throw new BrainError(
        'INVALID_INPUT',
        `pattern: ${program} runs whatever it is given, so it is never allowed always`,
      );
    }
  } else if (!readApprovalRule(args.tool, args.pattern).active) {
    throw new BrainError(
      'INVALID_INPUT',
      fieldOf(args.tool)
        ? `pattern: must be "${fieldOf(args.tool)} <value>"`
        : args.tool.startsWith('mcp__')
          ? `pattern: must be the tool name ${args.tool}`
          : `pattern: ${args.tool} cannot be allowed always`,
    );
  }
  const now = millisOf(isoNow(ctx.clock));
  ctx.db
    .transaction(() => {
      ctx.q
        .get(
          `INSERT INTO approval_rules (tool, pattern, created_at) VALUES (?, ?, ?)
           ON CONFLICT (tool, pattern) DO NOTHING`,
        )
        .run(args.tool, args.pattern, now);
    })
    .immediate();
  return listApprovalRules(ctx).find((r) => r.tool === args.tool && r.pattern === args.pattern)!;
}

/** Every "always allow" rule, newest first. */
export function listApprovalRules(ctx: BrainContext): ApprovalRule[] {
  return ctx.q
    .get<[], Pick<ApprovalRule, 'id' | 'tool' | 'pattern'> & { created_at: number }>(
      `SELECT id, tool, pattern, created_at FROM approval_rules ORDER BY id DESC`,
    )
    .all()
    .map((r) => ({
      ...r,
      created_at: isoOfMillis(r.created_at)!,
      ...readApprovalRule(r.tool, r.pattern),
    }));
}

/** Remove a rule; NOT_FOUND when there is none with that id. */
export function revokeApprovalRule(ctx: BrainContext, id: number): ApprovalRule {
  const parsed = parseInput(z.number().int().min(1), id);
  const rule = listApprovalRules(ctx).find((r) => r.id === parsed);
  if (!rule) throw new BrainError('NOT_FOUND', `id: no always-allow rule ${parsed}`);
  ctx.db
    .transaction(() => ctx.q.get(`DELETE FROM approval_rules WHERE id = ?`).run(parsed))
    .immediate();
  return rule;
}
