import { createHash } from 'node:crypto';
import { z } from 'zod';
import { isoNow, isoOfMillis, millisOf } from '../clock.js';
import type { BrainContext } from '../context.js';
import { BrainError } from '../errors.js';
import { messageIdSql, messageKey } from '../ids.js';
import { messageId, parseInput, text } from '../validation.js';
import { NO_OWNER, thisProcess } from './owner-process.js';
import { cutVisibly, escapeInvisible, quoteWord, splitQuoted } from './shown.js';

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
 * Programs that run whatever they are given (shells, interpreters, editors with commands) or run
 * another program (wrappers): never stored as an "always" rule, since what they do is in their
 * arguments' meaning, not their words.
 */
export const INTERPRETERS: ReadonlySet<string> = new Set([
  ...['sh', 'bash', 'zsh', 'dash', 'ksh', 'fish', 'csh', 'tcsh', 'busybox', 'rbash', 'ash'],
  ...['python', 'python2', 'python3', 'node', 'nodejs', 'deno', 'bun', 'ruby', 'perl', 'php'],
  ...['lua', 'tclsh', 'osascript', 'pwsh', 'powershell', 'awk', 'gawk', 'mawk', 'nawk'],
  ...['env', 'xargs', 'exec', 'eval', 'nice', 'nohup', 'timeout', 'sudo', 'doas', 'su'],
  ...['command', 'builtin', 'time', 'watch', 'strace', 'ssh', 'npx', 'make', 'find'],
  ...['stdbuf', 'ionice', 'chroot', 'setsid', 'flock', 'unshare', 'nsenter', 'runuser'],
  ...['pkexec', 'script', 'expect', 'parallel', 'chrt', 'taskset', 'firejail', 'bwrap'],
  ...['systemd-run', 'ltrace', 'gdb', 'valgrind', 'tmux', 'screen', 'entr', 'pnpx', 'bunx'],
  ...['uvx', 'pipx', 'irb', 'jshell', 'rscript', 'julia', 'wish', 'vi', 'vim', 'nvim', 'emacs'],
  ...['ed', 'ex', 'sg', 'dbus-run-session', 'wsl', 'cmd', 'start-stop-daemon'],
]);

/** Whether a program runs whatever it is given: INTERPRETERS, or a versioned interpreter name. */
export function isInterpreter(program: string): boolean {
  const name = program.toLowerCase();
  return (
    INTERPRETERS.has(name) ||
    /^(python|pypy|ruby|perl|node|php|lua|luajit|tclsh|wish|pip)[0-9.]*$/.test(name)
  );
}

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
  /** What the rule stores (see readApprovalRule for its forms). */
  pattern: string;
  created_at: string;
  /** Whether it allows anything: a rule stored in an old, wider form matches nothing. */
  active: boolean;
  /** What it matches, as the owner reads it (`git log --oneline -5 (exactly)`, `path a.md`). */
  matches: string;
}

const RUN_COMMAND = 'run_command';
/** A stored rule's most characters: one the owner cannot read whole is not offered. */
export const RULE_PATTERN_MAX = 1000;
const ruleInput = z.strictObject({
  tool: toolName,
  /** The exact call it allows, in one of the forms readApprovalRule reads. */
  pattern: text(RULE_PATTERN_MAX).min(1, 'must not be empty'),
});
export type AddRuleInput = z.input<typeof ruleInput>;

/**
 * The pattern of a rule for one exact command: `exactly <words>`, each word quoted as a shell
 * would read it back, after `in <dir>` when it runs elsewhere than the workspace. Equal
 * patterns mean equal word lists and directories, so a rule matches only what was approved.
 */
export function commandRulePattern(argv: readonly string[], cwd = '.'): string {
  const where = cwd === '.' ? '' : `in ${quoteWord(cwd)} `;
  return `${where}exactly ${argv.map(quoteWord).join(' ')}`;
}

/** The command and directory of a rule pattern in the current form; undefined for any other text. */
export function parseCommandRule(pattern: string): { argv: string[]; cwd: string } | undefined {
  const words = splitQuoted(pattern);
  if (!words) return undefined;
  let cwd = '.';
  let rest = words;
  if (words[0] === 'in' && words.length > 2) {
    cwd = words[1]!;
    rest = words.slice(2);
  }
  if (rest[0] !== 'exactly' || rest.length < 2) return undefined;
  const argv = rest.slice(1);
  // Only the one spelling commandRulePattern writes: any other would be a second key for a call.
  return commandRulePattern(argv, cwd) === pattern ? { argv, cwd } : undefined;
}

/**
 * What a stored rule allows, read from its pattern. The current forms: run_command
 * `exactly <words>` (one command, word for word, in the workspace or `in <dir>`); write_file
 * `path <path>` (that file, relative to the workspace); send_message `to <name>` (messages to
 * that agent); an MCP tool its own name (every call of that tool, any input). Any other pattern
 * (the older `git push *` and bare tool names) is inactive: it matches nothing.
 */
export function readApprovalRule(
  tool: string,
  pattern: string,
): { active: boolean; matches: string } {
  const inactive = {
    active: false,
    matches: `nothing: "${escapeInvisible(pattern)}" is an old, wider form; approve the call again to store it exactly`,
  };
  if (tool === RUN_COMMAND) {
    const command = parseCommandRule(pattern);
    if (!command) return inactive;
    const where = command.cwd === '.' ? '' : `, in ${quoteWord(command.cwd)}`;
    return {
      active: true,
      matches: `${escapeInvisible(command.argv.map(quoteWord).join(' '))} (exactly${escapeInvisible(where)})`,
    };
  }
  const field = fieldOf(tool);
  if (field) {
    const value = pattern.startsWith(`${field} `) ? pattern.slice(field.length + 1) : '';
    return value.trim() === ''
      ? inactive
      : { active: true, matches: `${field} ${escapeInvisible(value)}` };
  }
  if (tool.startsWith('mcp__') && pattern === tool)
    return { active: true, matches: 'any input (every call of this tool)' };
  return inactive;
}

/** Tools whose rule names the one argument that matters: the file written, the recipient. */
const FIELD_RULES: Record<string, string> = { write_file: 'path', send_message: 'to' };
const fieldOf = (tool: string) =>
  Object.hasOwn(FIELD_RULES, tool) ? FIELD_RULES[tool] : undefined;

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
