import { readApprovalRule, type ApprovalRecord, type Brain } from '../../src/index.js';
import type { Tool } from '../tools/types.js';
import { describeCall, firstLine } from './describe.js';
import type { Policy } from './policy.js';
import { applyTrust, profilesConfig, type ProfilesConfig, type TurnTrust } from './trust.js';

export type ApprovalAnswer = 'approve' | 'always' | 'deny';

/**
 * What the owner is shown. Every channel shows `display` (with the reason and `alwaysText`,
 * through promptText in agent/permissions/describe.ts), never the raw input.
 */
export interface ApprovalRequest {
  tool: string;
  input: Record<string, unknown>;
  /** The call as describeCall shows it: every argument by name, hidden characters escaped. */
  display: string;
  /** The first line of `display`. */
  summary: string;
  reason: string;
  /** What "always" would store as a rule; absent: the call can only be approved once. */
  alwaysPattern?: string;
  /** The rule as it will match (`run_command: git log -5 (exactly)`), with `alwaysPattern`. */
  alwaysText?: string;
  /** Aborted when the answer is no longer wanted (timeout, cancelled turn). */
  signal: AbortSignal;
  /** The pending approval's row in the brain (`brain approvals`, brain ui's assistant page). */
  recordId?: number;
}

export interface GateOptions {
  brain: Brain;
  policy: Policy;
  tool: Tool;
  input: Record<string, unknown>;
  session: string;
  turnMessageId: string;
  /** The turn's workspace (agent/tools/types.ts ToolContext). */
  workspace: string;
  /** How long an ask waits before it is denied. */
  timeoutMs: number;
  /** Heartbeat, cron, other agents: an ask is denied without asking. */
  unattended: boolean;
  /** The channel's prompt; absent means nobody can answer (as unattended). */
  ask?: (request: ApprovalRequest) => Promise<ApprovalAnswer>;
  /** The turn's signal: cancelling it while an ask waits denies the ask. */
  signal?: AbortSignal;
  /** Who drives the turn and what foreign content it has taken in (agent/permissions/trust.ts). */
  trust?: TurnTrust;
  /** The tool profiles by driver; default: the config's defaults. */
  profiles?: ProfilesConfig;
  /** Whether commands can be run with no network (run_command's sandbox is in use). */
  offline?: () => boolean;
}

export type GateResult =
  | {
      allowed: true;
      /** Run it with no network (a command allowed in a tainted turn; the sandbox cuts it). */
      offline?: boolean;
    }
  | { allowed: false; message: string };

/**
 * Decide whether one tool call may run and record the decision in the brain: the policy first;
 * an ask goes to the owner (recorded as pending meanwhile) and is denied at the timeout, when the
 * turn is cancelled, or at once in an unattended run. The owner answers on the channel or, from
 * any process, through the ask's row (brain ui's assistant page): the first answer recorded is
 * the one acted on. "always" stores a rule when the call has a pattern that can be allowed always.
 */
export async function gateToolCall(o: GateOptions): Promise<GateResult> {
  const decided = await o.policy.decide(o.tool, o.input, { workspace: o.workspace });
  const d = o.trust
    ? applyTrust(
        decided,
        o.tool,
        o.input,
        o.trust,
        o.profiles ?? profilesConfig.parse(undefined),
        o.offline,
      )
    : decided;
  // What is recorded is what the owner is (or would be) shown.
  const display = describeCall(o.tool, o.input, { workspace: o.workspace });
  const common = {
    tool: o.tool.name,
    args: o.input,
    summary: display,
    session: o.session,
    message_id: o.turnMessageId,
  };
  if (d.decision !== 'ask') {
    o.brain.assistant.recordApproval({
      ...common,
      decision: d.decision,
      decided_by: d.by,
      reason: d.reason,
    });
    if (d.decision === 'allow')
      return d.offline ? { allowed: true, offline: true } : { allowed: true };
    return { allowed: false, message: `denied by policy: ${d.reason}` };
  }
  if (o.unattended || !o.ask) {
    o.brain.assistant.recordApproval({
      ...common,
      decision: 'denied',
      decided_by: 'unattended',
      reason: `${d.reason}; nobody to ask in an unattended run`,
    });
    return {
      allowed: false,
      message: `denied: ${o.tool.name} needs the owner's approval (${d.reason}), and this run is unattended`,
    };
  }

  const pending = o.brain.assistant.recordApproval({
    ...common,
    decision: 'pending',
    reason: d.reason,
  });
  const answer = await askWithTimeout(o, {
    recordId: pending.id,
    tool: o.tool.name,
    input: o.input,
    display,
    summary: firstLine(display),
    reason: d.reason,
    ...(d.alwaysPattern
      ? {
          alwaysPattern: d.alwaysPattern,
          alwaysText: `${o.tool.name}: ${readApprovalRule(o.tool.name, d.alwaysPattern).matches}`,
        }
      : {}),
  });
  const seconds = Math.round(o.timeoutMs / 1000);
  // The channel's answer is taken only if the ask still waits: an answer recorded in the brain
  // meanwhile (brain ui) wins over it, and the call follows the row, whatever it says.
  let record: ApprovalRecord;
  let taken = false;
  if (typeof answer === 'object') record = answer;
  else {
    const settled = o.brain.assistant.decideApproval({
      id: pending.id,
      ...settlement(answer, seconds, o.tool.name, d.alwaysPattern),
    });
    record = settled.record;
    taken = settled.settled;
  }
  if (answer === 'cancelled') return { allowed: false, message: `denied: ${CANCELLED}` };
  if (record.decision === 'approved') {
    if (taken && answer === 'always' && d.alwaysPattern)
      o.brain.assistant.addApprovalRule({ tool: o.tool.name, pattern: d.alwaysPattern });
    return { allowed: true };
  }
  if (record.decision === 'timeout')
    return { allowed: false, message: `denied: the owner did not answer within ${seconds} s` };
  return { allowed: false, message: 'denied by the owner' };
}

const CANCELLED = 'the turn was cancelled while asking';

/** How the gate records the channel's answer (or its absence). */
function settlement(
  answer: ApprovalAnswer | 'timeout' | 'cancelled',
  seconds: number,
  tool: string,
  alwaysPattern: string | undefined,
): { decision: 'approved' | 'denied' | 'timeout'; decided_by: 'owner'; reason?: string } {
  if (answer === 'timeout')
    return { decision: 'timeout', decided_by: 'owner', reason: `no answer within ${seconds} s` };
  if (answer === 'cancelled') return { decision: 'denied', decided_by: 'owner', reason: CANCELLED };
  if (answer === 'deny') return { decision: 'denied', decided_by: 'owner' };
  let reason = 'approved by the owner';
  if (answer === 'always' && alwaysPattern)
    reason = `always allowed from now on (${tool}: ${readApprovalRule(tool, alwaysPattern).matches})`;
  else if (answer === 'always') reason = 'approved once: this call cannot be allowed always';
  return { decision: 'approved', decided_by: 'owner', reason };
}

/**
 * Why a channel's prompt is closed when the owner answered elsewhere (brain ui): channels may say
 * so instead of "no answer".
 */
export class AnsweredElsewhere extends Error {
  readonly decision: string;
  constructor(record: ApprovalRecord) {
    super(`${record.decision} elsewhere${record.reason ? ` (${record.reason})` : ''}`);
    this.name = 'AnsweredElsewhere';
    this.decision = record.decision;
  }
}

/** Why a channel's prompt is closed when its turn was stopped while it asked. */
export class AskCancelled extends Error {
  constructor() {
    super('the turn was stopped before an answer');
    this.name = 'AskCancelled';
  }
}

/**
 * What a channel writes under a prompt the gate closed, from the close's reason: answered
 * elsewhere, its turn stopped, else no answer in time (a deny).
 */
export function closedAskNote(reason: unknown, waitedSeconds: number): string {
  if (reason instanceof AnsweredElsewhere) {
    return reason.message.charAt(0).toUpperCase() + reason.message.slice(1);
  }
  if (reason instanceof AskCancelled) return 'Not answered: the turn was stopped';
  return `Denied: no answer within ${waitedSeconds} s`;
}

/**
 * The channel's answer, the timeout, the turn's cancellation, or the ask's row settled by someone
 * else (the owner on brain ui's assistant page, from any process): whichever comes first.
 */
async function askWithTimeout(
  o: GateOptions,
  request: Omit<ApprovalRequest, 'signal'> & { recordId: number },
): Promise<ApprovalAnswer | 'timeout' | 'cancelled' | ApprovalRecord> {
  if (o.signal?.aborted) return 'cancelled';
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<'timeout' | 'cancelled'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), o.timeoutMs);
    onAbort = () => resolve('cancelled');
    o.signal?.addEventListener('abort', onAbort, { once: true });
  });
  const watching = new AbortController();
  const recorded = o.brain.assistant
    .waitApprovalDecision(request.recordId, { signal: watching.signal })
    .then((record) => record ?? new Promise<never>(() => {}));
  const asked = o.ask!({ ...request, signal: controller.signal }).catch(
    // A prompt that fails (closed terminal, channel error) is no approval.
    () => 'deny' as const,
  );
  let result: ApprovalAnswer | 'timeout' | 'cancelled' | ApprovalRecord | undefined;
  try {
    result = await Promise.race([asked, stopped, recorded]);
    return result;
  } finally {
    clearTimeout(timer);
    if (onAbort) o.signal?.removeEventListener('abort', onAbort);
    watching.abort();
    controller.abort(
      typeof result === 'object'
        ? new AnsweredElsewhere(result)
        : result === 'cancelled'
          ? new AskCancelled()
          : undefined,
    );
  }
}
