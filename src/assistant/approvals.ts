import { createHash } from 'node:crypto';
import { z } from 'zod';
import { isoNow, isoOfMillis, millisOf } from '../clock.js';
import type { BrainContext } from '../context.js';
import { BrainError } from '../errors.js';
import { messageIdSql, messageKey } from '../ids.js';
import { messageId, parseInput, text } from '../validation.js';

/** What became of a tool call: settled at once (allow, deny) or asked (pending → the answer). */
export const APPROVAL_DECISIONS = [
  'allow',
  'deny',
  'pending',
  'approved',
  'denied',
  'timeout',
] as const;
export type ApprovalDecision = (typeof APPROVAL_DECISIONS)[number];
/** Who settled it: the config's policy, the owner, a stored "always" rule, or an unattended run. */
export const APPROVAL_DECIDERS = ['policy', 'owner', 'always', 'unattended'] as const;
export type ApprovalDecider = (typeof APPROVAL_DECIDERS)[number];

/**
 * Programs that run whatever they are given: never stored as an "always" rule, since allowing
 * `sh *` or `env *` would allow everything.
 */
export const INTERPRETERS: ReadonlySet<string> = new Set([
  ...['sh', 'bash', 'zsh', 'dash', 'ksh', 'fish', 'csh', 'tcsh', 'busybox'],
  ...['python', 'python2', 'python3', 'node', 'nodejs', 'deno', 'bun', 'ruby', 'perl', 'php'],
  ...['lua', 'tclsh', 'osascript', 'pwsh', 'powershell', 'awk', 'gawk', 'mawk', 'nawk'],
  ...['env', 'xargs', 'exec', 'eval', 'nice', 'nohup', 'timeout', 'sudo', 'doas', 'su'],
  ...['command', 'builtin', 'time', 'watch', 'strace', 'ssh', 'npx', 'make', 'find'],
]);

/** The sha256 of the canonical JSON (keys sorted at every level) of a tool call's arguments. */
export function argsDigest(args: unknown): string {
  const canonical = JSON.stringify(args, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
  return createHash('sha256')
    .update(canonical ?? 'null')
    .digest('hex');
}

const toolName = text(200).min(1, 'must not be empty');

const recordInput = z.strictObject({
  tool: toolName,
  /** The call's arguments: only their digest is stored. */
  args: z.unknown(),
  summary: text(300).default(''),
  decision: z.enum(APPROVAL_DECISIONS),
  /** Required unless the decision is pending. */
  decided_by: z.enum(APPROVAL_DECIDERS).optional(),
  reason: text(1000).default(''),
  session: text(200).optional(),
  message_id: messageId.optional(),
});
export type RecordApprovalInput = z.input<typeof recordInput>;

const settleInput = z.strictObject({
  id: z.number().int().min(1),
  decision: z.enum(['approved', 'denied', 'timeout']),
  decided_by: z.enum(APPROVAL_DECIDERS),
  reason: text(1000).optional(),
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
             message_id, asked_at, decided_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
        ).lastInsertRowid;
    })
    .immediate();
  return getApproval(ctx, Number(id))!;
}

/** Settle a pending ask with the owner's answer (or its absence); NOT_FOUND unless pending. */
export function settleApproval(ctx: BrainContext, input: SettleApprovalInput): ApprovalRecord {
  const args = parseInput(settleInput, input);
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
  if (changed === 0) throw new BrainError('NOT_FOUND', `id: no pending approval ${args.id}`);
  return getApproval(ctx, args.id)!;
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
  pattern: string;
  created_at: string;
}

const RUN_COMMAND = 'run_command';
const ruleInput = z.strictObject({
  tool: toolName,
  /** For run_command: the program and its fixed leading arguments (`git log *`); else the tool. */
  pattern: text(1000).min(1, 'must not be empty'),
});
export type AddRuleInput = z.input<typeof ruleInput>;

/**
 * Store an "always allow" rule (idempotent: an existing identical rule is returned). A
 * run_command pattern must name a plain program (no path, no shell or interpreter, no
 * wildcard in its name); another tool's pattern is its own name.
 */
export function addApprovalRule(ctx: BrainContext, input: AddRuleInput): ApprovalRule {
  const args = parseInput(ruleInput, input);
  if (args.tool === RUN_COMMAND) {
    const program = args.pattern.split(' ')[0]!;
    if (!/^[A-Za-z0-9][A-Za-z0-9._+-]*$/.test(program)) {
      throw new BrainError('INVALID_INPUT', `pattern: "${program}" is not a plain program name`);
    }
    if (
      INTERPRETERS.has(program.toLowerCase()) ||
      /^(python|ruby|perl|node|php)[0-9.]*$/i.test(program)
    ) {
      throw new BrainError(
        'INVALID_INPUT',
        `pattern: ${program} runs whatever it is given, so it is never allowed always`,
      );
    }
  } else if (args.pattern !== args.tool) {
    throw new BrainError('INVALID_INPUT', `pattern: must be the tool name ${args.tool}`);
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
    .get<[], Omit<ApprovalRule, 'created_at'> & { created_at: number }>(
      `SELECT id, tool, pattern, created_at FROM approval_rules ORDER BY id DESC`,
    )
    .all()
    .map((r) => ({ ...r, created_at: isoOfMillis(r.created_at)! }));
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
