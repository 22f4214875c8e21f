import {
  findOrCreateSession,
  listSessions,
  newSession,
  sessionMessages,
  sessionInThread,
  sessionOfThread,
  type SessionInput,
  type ThreadSessionInput,
  type SessionMessagesInput,
} from './sessions.js';
import {
  acquireLease,
  getLease,
  releaseLease,
  renewLease,
  type AcquireLeaseInput,
  type ReleaseLeaseInput,
} from './leases.js';
import { latestSummary } from './summaries.js';
import { recordUsage, usageSummary, type RecordUsageInput, type UsageInput } from './usage.js';
import {
  addApprovalRule,
  answerApproval,
  decideApproval,
  getApproval,
  listApprovalRules,
  listApprovals,
  recordApproval,
  revokeApprovalRule,
  settleApproval,
  waitApprovalDecision,
  type AddRuleInput,
  type AnswerApprovalInput,
  type ListApprovalsInput,
  type RecordApprovalInput,
  type SettleApprovalInput,
} from './approvals.js';
import {
  decidePairing,
  isPaired,
  listPairings,
  requestPairing,
  type DecidePairingInput,
  type PairingSender,
  type RequestPairingInput,
} from './pairing.js';
import {
  claimCronRun,
  finishCronRun,
  getSchedulerState,
  initSchedulerState,
  interruptCronRuns,
  listCronRuns,
  retryCronRun,
  setSchedulerState,
  type ClaimCronRunInput,
  type CronRunsInput,
  type FinishCronRunInput,
} from './scheduler.js';
import {
  addReminder,
  cancelReminder,
  fireReminder,
  getReminder,
  listReminders,
  type AddReminderInput,
  type FireReminderInput,
  type ListRemindersInput,
} from './reminders.js';
import {
  addTask,
  completeTask,
  getTask,
  listTasks,
  type AddTaskInput,
  type ListTasksInput,
} from './tasks.js';
import { getOwnerTarget, setOwnerTarget, type SetOwnerTargetInput } from './owner-target.js';
import {
  finishDelegation,
  getDelegation,
  listDelegations,
  startDelegation,
  type FinishDelegationInput,
  type ListDelegationsInput,
  type StartDelegationInput,
} from './delegations.js';

import type { BrainContext } from '../context.js';

/** The assistant's bookkeeping: sessions, leases, usage, approvals and rules, pairing, cron runs, reminders, tasks, where the owner is. */
export interface AssistantSection {
  /** The session `name` (`chat/default`): its current thread, made when there is none. */
  session: (input: SessionInput) => ReturnType<typeof findOrCreateSession>;
  /** Point the session `name` at a fresh thread; the old one stays, searchable. */
  newSession: (input: SessionInput) => ReturnType<typeof newSession>;
  sessions: () => ReturnType<typeof listSessions>;
  /** The session `name` conducted in an existing thread (created or moved there). */
  sessionInThread: (input: ThreadSessionInput) => ReturnType<typeof sessionInThread>;
  /** The session a thread is or was the conversation of. */
  sessionOfThread: (threadId: string) => ReturnType<typeof sessionOfThread>;
  /** A thread's messages in order, after a given one when asked; costs the rows returned. */
  sessionMessages: (input: SessionMessagesInput) => ReturnType<typeof sessionMessages>;
  /** The compaction summary (STM, category `summary`) covering the thread furthest. */
  latestSummary: (threadId: string) => ReturnType<typeof latestSummary>;
  /** Take a lease (one turn per session across processes): true when taken. */
  acquireLease: (input: AcquireLeaseInput) => ReturnType<typeof acquireLease>;
  /** Extend a lease still held: false when it was taken over. */
  renewLease: (input: AcquireLeaseInput) => ReturnType<typeof renewLease>;
  releaseLease: (input: ReleaseLeaseInput) => ReturnType<typeof releaseLease>;
  getLease: (key: string) => ReturnType<typeof getLease>;
  /** Record one model call's tokens. */
  recordUsage: (input: RecordUsageInput) => ReturnType<typeof recordUsage>;
  /** Token sums by model, UTC day or source, each split by model and endpoint. */
  usage: (input?: UsageInput) => ReturnType<typeof usageSummary>;
  /** Record a permission decision on a tool call (`pending` while the owner is asked). */
  recordApproval: (input: RecordApprovalInput) => ReturnType<typeof recordApproval>;
  /** Settle a pending ask: approved, denied or timeout. */
  settleApproval: (input: SettleApprovalInput) => ReturnType<typeof settleApproval>;
  /** Settle an ask if it still waits: the first decision wins; the row says which did. */
  decideApproval: (input: SettleApprovalInput) => ReturnType<typeof decideApproval>;
  /**
   * The owner's answer from outside the asking process (brain ui): CONFLICT, saying what became
   * of it, when the ask no longer waits.
   */
  answerApproval: (input: AnswerApprovalInput) => ReturnType<typeof answerApproval>;
  /** An ask's row once it is settled, by anyone; undefined when `signal` aborts first. */
  waitApprovalDecision: (
    id: number,
    options: { signal: AbortSignal; intervalMs?: number },
  ) => ReturnType<typeof waitApprovalDecision>;
  getApproval: (id: number) => ReturnType<typeof getApproval>;
  /** Decisions, newest first (only waiting asks with `pending`). */
  approvals: (input?: ListApprovalsInput) => ReturnType<typeof listApprovals>;
  /** Store an "always allow" rule; interpreters and shells are refused. */
  addApprovalRule: (input: AddRuleInput) => ReturnType<typeof addApprovalRule>;
  approvalRules: () => ReturnType<typeof listApprovalRules>;
  revokeApprovalRule: (id: number) => ReturnType<typeof revokeApprovalRule>;
  /** Remember where the assistant `agent` last heard its owner (`brain agent`'s delivery target). */
  setOwnerTarget: (input: SetOwnerTargetInput) => ReturnType<typeof setOwnerTarget>;
  /** Where the assistant `agent` last heard its owner, or null. */
  ownerTarget: (agent: string) => ReturnType<typeof getOwnerTarget>;
  /** A channel's sender off the allowlist asks to be paired: a code, or what became of it. */
  requestPairing: (input: RequestPairingInput) => ReturnType<typeof requestPairing>;
  /** Whether the owner approved this sender. */
  isPaired: (input: PairingSender) => boolean;
  /** Pending (unexpired) requests and approved senders, newest first. */
  pairings: () => ReturnType<typeof listPairings>;
  /** Approve or deny a pending code; NOT_FOUND when none is pending. */
  decidePairing: (input: DecidePairingInput) => ReturnType<typeof decidePairing>;
  /** Claim a cron job's due time before running it: undefined when it was claimed already. */
  claimCronRun: (input: ClaimCronRunInput) => ReturnType<typeof claimCronRun>;
  /** Settle a claimed cron run: end, outcome, delivered or not. */
  finishCronRun: (input: FinishCronRunInput) => ReturnType<typeof finishCronRun>;
  /** Cron runs, newest due time first. */
  cronRuns: (input?: CronRunsInput) => ReturnType<typeof listCronRuns>;
  /** Runs left `running` by a process that ended, now marked `interrupted`. */
  interruptCronRuns: () => ReturnType<typeof interruptCronRuns>;
  /** Run an interrupted run once more (once only): undefined when it cannot be. */
  retryCronRun: (id: number) => ReturnType<typeof retryCronRun>;
  /** A value the scheduler kept (last email UID, last heartbeat delivery), or undefined. */
  schedulerState: (key: string) => unknown;
  setSchedulerState: (key: string, value: unknown) => void;
  /** Keep a value only when none is kept; returns the kept one. */
  initSchedulerState: (key: string, value: unknown) => unknown;
  addReminder: (input: AddReminderInput) => ReturnType<typeof addReminder>;
  getReminder: (id: number) => ReturnType<typeof getReminder>;
  /** Pending reminders soonest first (`due_by`: the ones due); `all` adds done and cancelled. */
  reminders: (input?: ListRemindersInput) => ReturnType<typeof listReminders>;
  cancelReminder: (id: number) => ReturnType<typeof cancelReminder>;
  /** Claim a due reminder before sending it: false when it was fired or cancelled already. */
  fireReminder: (input: FireReminderInput) => ReturnType<typeof fireReminder>;
  addTask: (input: AddTaskInput) => ReturnType<typeof addTask>;
  getTask: (id: number) => ReturnType<typeof getTask>;
  tasks: (input?: ListTasksInput) => ReturnType<typeof listTasks>;
  completeTask: (id: number) => ReturnType<typeof completeTask>;
  /** A task delegated to a sub-turn starts: its row, `running`, owned by this process. */
  startDelegation: (input: StartDelegationInput) => ReturnType<typeof startDelegation>;
  /** A delegated task ends: done, failed, cancelled, or out of budget, with its result. */
  finishDelegation: (input: FinishDelegationInput) => ReturnType<typeof finishDelegation>;
  getDelegation: (id: number) => ReturnType<typeof getDelegation>;
  /** Delegated tasks, newest first (`running`: those under way). */
  delegations: (input?: ListDelegationsInput) => ReturnType<typeof listDelegations>;
}

export function assistantSection(ctx: BrainContext, _dbPath: string): AssistantSection {
  return {
    session: (input) => findOrCreateSession(ctx, input),
    newSession: (input) => newSession(ctx, input),
    sessions: () => listSessions(ctx),
    sessionInThread: (input) => sessionInThread(ctx, input),
    sessionOfThread: (threadId) => sessionOfThread(ctx, threadId),
    sessionMessages: (input) => sessionMessages(ctx, input),
    latestSummary: (threadId) => latestSummary(ctx, threadId),
    acquireLease: (input) => acquireLease(ctx, input),
    renewLease: (input) => renewLease(ctx, input),
    releaseLease: (input) => releaseLease(ctx, input),
    getLease: (key) => getLease(ctx, key),
    recordUsage: (input) => recordUsage(ctx, input),
    usage: (input) => usageSummary(ctx, input),
    recordApproval: (input) => recordApproval(ctx, input),
    settleApproval: (input) => settleApproval(ctx, input),
    decideApproval: (input) => decideApproval(ctx, input),
    answerApproval: (input) => answerApproval(ctx, input),
    waitApprovalDecision: (id, options) => waitApprovalDecision(ctx, id, options),
    getApproval: (id) => getApproval(ctx, id),
    approvals: (input) => listApprovals(ctx, input),
    addApprovalRule: (input) => addApprovalRule(ctx, input),
    approvalRules: () => listApprovalRules(ctx),
    revokeApprovalRule: (id) => revokeApprovalRule(ctx, id),
    setOwnerTarget: (input) => setOwnerTarget(ctx, input),
    ownerTarget: (agent) => getOwnerTarget(ctx, agent),
    requestPairing: (input) => requestPairing(ctx, input),
    isPaired: (input) => isPaired(ctx, input),
    pairings: () => listPairings(ctx),
    decidePairing: (input) => decidePairing(ctx, input),
    claimCronRun: (input) => claimCronRun(ctx, input),
    finishCronRun: (input) => finishCronRun(ctx, input),
    cronRuns: (input) => listCronRuns(ctx, input),
    interruptCronRuns: () => interruptCronRuns(ctx),
    retryCronRun: (id) => retryCronRun(ctx, id),
    schedulerState: (key) => getSchedulerState(ctx, key),
    setSchedulerState: (key, value) => setSchedulerState(ctx, key, value),
    initSchedulerState: (key, value) => initSchedulerState(ctx, key, value),
    addReminder: (input) => addReminder(ctx, input),
    getReminder: (id) => getReminder(ctx, id),
    reminders: (input) => listReminders(ctx, input),
    cancelReminder: (id) => cancelReminder(ctx, id),
    fireReminder: (input) => fireReminder(ctx, input),
    addTask: (input) => addTask(ctx, input),
    getTask: (id) => getTask(ctx, id),
    tasks: (input) => listTasks(ctx, input),
    completeTask: (id) => completeTask(ctx, id),
    startDelegation: (input) => startDelegation(ctx, input),
    finishDelegation: (input) => finishDelegation(ctx, input),
    getDelegation: (id) => getDelegation(ctx, id),
    delegations: (input) => listDelegations(ctx, input),
  };
}
