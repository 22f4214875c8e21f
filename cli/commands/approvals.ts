import type { Command } from 'commander';
import type { ApprovalRecord, ApprovalRule } from '../../src/index.js';
// The error class and the escaping alone: a static import of the library's index would load it
// for every command.
import { escapeInvisible } from '../../src/index.js';
import { BrainError } from '../../src/index.js';
import { bold, dim, printJson, println, shortTime } from '../output.js';
import { withBrain, type GlobalOptions } from '../run.js';

interface ApprovalsOptions {
  pending?: boolean;
  revoke?: string;
  limit: string;
}

/** `brain approvals`: the assistant's permission decisions and its "always allow" rules. */
export function registerApprovals(program: Command, globals: () => GlobalOptions): void {
  program
    .command('approvals')
    .description("the assistant's permission decisions (newest first) and always-allow rules")
    .option('--pending', 'only the asks still waiting for an answer')
    .option('--revoke <id>', 'remove the always-allow rule with this id')
    .option('--limit <n>', 'how many decisions to list', '50')
    .action((opts: ApprovalsOptions) => {
      // A usage error is one before the brain is looked for.
      const revoke = opts.revoke === undefined ? undefined : positiveInt(opts.revoke, '--revoke');
      const limit = positiveInt(opts.limit, '--limit');
      return withBrain(globals(), ({ brain, json }) => {
        if (revoke !== undefined) {
          const rule = brain.assistant.revokeApprovalRule(revoke);
          if (json) return printJson({ revoked: rule });
          return println(`revoked rule ${rule.id}: ${formatRule(rule)}`);
        }
        const decisions = brain.assistant.approvals({ pending: opts.pending ?? false, limit });
        const rules = opts.pending ? [] : brain.assistant.approvalRules();
        if (json) return printJson(opts.pending ? { pending: decisions } : { decisions, rules });
        if (decisions.length === 0)
          println(opts.pending ? 'no ask is waiting' : 'no decisions recorded');
        for (const d of decisions) println(formatDecision(d));
        if (opts.pending) return;
        println();
        println(bold('always allowed'));
        if (rules.length === 0) println(dim('  none'));
        for (const r of rules)
          println(`  ${r.id}  ${formatRule(r)}  ${dim(shortTime(r.created_at))}`);
      });
    });
}

/** A rule as it will match; one stored in an old, wider form says it matches nothing. */
function formatRule(r: ApprovalRule): string {
  const what = `${escapeInvisible(r.tool)}: ${r.matches}`;
  return r.active ? what : `${dim('inactive')} ${what}`;
}

/**
 * A decision with the call as it was shown (one line per argument). Every line is escaped again:
 * a summary recorded before calls were described could hold raw control characters.
 */
function formatDecision(d: ApprovalRecord): string {
  const by = d.decided_by ? ` by ${d.decided_by}` : '';
  const [first = '', ...more] = d.summary.split('\n').map(escapeInvisible);
  const call = first.startsWith(`${d.tool} `) ? first : `${escapeInvisible(d.tool)}: ${first}`;
  const head = `${d.id}  ${dim(shortTime(d.asked_at))}  ${d.decision}${by}  ${call}  ${dim(escapeInvisible(d.reason))}`;
  return [head, ...more.map((line) => `      ${line}`)].join('\n');
}

function positiveInt(value: string, option: string): number {
  if (!/^[1-9][0-9]{0,15}$/.test(value))
    throw new BrainError(
      'INVALID_INPUT',
      `${option}: must be a positive whole number, not "${value}"`,
    );
  return Number(value);
}
