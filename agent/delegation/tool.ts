import { z } from 'zod';
import { BrainError, cutVisibly } from '../../src/index.js';
import { taskSession } from '../conversation/sessions.js';
import type { SubTurnResult, Tool, ToolContext } from '../tools/types.js';
import { taskBudget } from './budget.js';
import type { DelegationConfig } from './config.js';

/**
 * `delegate_task`: hand a job to a sub-turn in a session of its own (`task/<id>`). The sub-turn
 * gets the requested tools that the calling turn may use (all of them by default), nothing more:
 * the loop builds it with the caller's driver, policy, profiles, taint and owner's words
 * (agent/loop.ts runSubTurn). It has a round and a token/cost budget, and may delegate further
 * only while `delegation.maxDepth` allows. Waiting, its answer is the tool's result; otherwise it
 * is queued on the lane and its answer goes to the owner when it ends.
 */

const input = z.strictObject({
  task: z.string().trim().min(1, 'must not be empty').max(20_000),
  tools: z.array(z.string().min(1).max(200)).max(200).optional(),
  wait: z.boolean().default(true),
});
type Input = z.output<typeof input>;

/** How a task ended, as its row and the words said about it. */
export interface TaskOutcome {
  id: number;
  status: 'done' | 'failed' | 'cancelled' | 'budget';
  /** What the caller or the owner is told. */
  text: string;
  /** The answer came from a sub-turn that took in foreign content. */
  foreign: boolean;
}

/** A task to run in the background: what the lane runs, chained to its caller's turn. */
export interface BackgroundTask {
  id: number;
  session: string;
  /** The calling turn's signal: cancelling that turn cancels the task. */
  parentSignal: AbortSignal;
  run(signal: AbortSignal): Promise<{ result?: SubTurnResult; outcome: TaskOutcome }>;
}

export interface DelegateDeps {
  config: () => DelegationConfig;
  /** Queues a task on the lane; absent (no lane here): only waiting tasks can run. */
  background?: (task: BackgroundTask) => void;
}

export function createDelegateTaskTool(deps: DelegateDeps): Tool<Input> {
  return {
    name: 'delegate_task',
    description:
      'Run a job in a sub-agent and get its answer; wait false: in the background, the owner gets it. tools: some of yours.',
    schema: input,
    // Written out: what zod would add (lengths, defaults) is paid for in every request.
    inputSchema: {
      type: 'object',
      properties: {
        task: { type: 'string' },
        tools: { type: 'array', items: { type: 'string' } },
        wait: { type: 'boolean' },
      },
      required: ['task'],
    },
    readOnly: false,
    async run(args, ctx) {
      const config = deps.config();
      const depth = ctx.depth ?? 0;
      if (!ctx.subTurn || !ctx.turnTools)
        return { content: 'delegate_task: this turn cannot delegate', isError: true };
      if (depth >= config.maxDepth)
        return {
          content: `refused: a delegated task may not delegate further (delegation.maxDepth is ${config.maxDepth})`,
          isError: true,
        };
      if (!args.wait && !deps.background)
        return {
          content: 'refused: tasks cannot run in the background here (brain chat); use wait: true',
          isError: true,
        };
      // Whatever the model names, a task gets only tools this turn has, and delegate_task only
      // while the depth allows the task to use it.
      const mine = new Set(
        ctx.turnTools().filter((n) => n !== 'delegate_task' || depth + 1 < config.maxDepth),
      );
      const requested = [...new Set(args.tools ?? mine)];
      const tools = requested.filter((n) => mine.has(n));
      const refused = requested.filter((n) => !mine.has(n));
      const taint = ctx.taint?.() ?? [];
      const record = ctx.brain.assistant.startDelegation({
        session: ctx.session,
        message_id: ctx.turnMessageId,
        task: args.task,
        tools,
        wait: args.wait,
        depth: depth + 1,
        ...(taint.length > 0 ? { tainted_by: cutVisibly(taint.join(', '), 500) } : {}),
      });
      const session = taskSession(record.id);
      const notGiven =
        refused.length > 0 ? `\n(Not given, not tools of this turn: ${refused.join(', ')}.)` : '';
      const run = (signal: AbortSignal, asks: boolean) =>
        runTask(ctx, config, { id: record.id, session, task: args.task, tools, signal, asks });
      if (args.wait) {
        const { outcome } = await run(ctx.signal, true);
        return {
          content: `${outcome.text}${notGiven}`,
          ...(outcome.status === 'done' ? {} : { isError: true }),
          ...(outcome.foreign ? { untrusted: true } : {}),
        };
      }
      // In the background nobody is there to answer an ask: each is denied.
      deps.background!({
        id: record.id,
        session,
        parentSignal: ctx.signal,
        run: (signal) => run(signal, false),
      });
      return {
        content: `Task ${record.id} started in the background (session ${session}); its answer goes to the owner when it is done.${notGiven}`,
      };
    },
  };
}

/** Run a task's sub-turn and settle its row: how it ended, and the words for it. */
async function runTask(
  ctx: ToolContext,
  config: DelegationConfig,
  task: {
    id: number;
    session: string;
    task: string;
    tools: string[];
    signal: AbortSignal;
    /** Its asks go to whoever the caller asks (a waited-for task); false: nobody is asked. */
    asks: boolean;
  },
): Promise<{ result?: SubTurnResult; outcome: TaskOutcome }> {
  let result: SubTurnResult | undefined;
  let outcome: TaskOutcome;
  try {
    result = await ctx.subTurn!({
      session: task.session,
      text: task.task,
      tools: task.tools,
      maxRounds: config.maxRounds,
      budget: taskBudget(config),
      signal: task.signal,
      asks: task.asks,
      source: 'task',
    });
    outcome = outcomeOf(task.id, result, config);
  } catch (err) {
    outcome = task.signal.aborted
      ? cancelledOutcome(task.id)
      : {
          id: task.id,
          status: 'failed',
          text: `Task ${task.id} failed: ${err instanceof Error ? err.message : String(err)}`,
          foreign: false,
        };
  }
  settleTask(ctx.brain, outcome);
  return { ...(result ? { result } : {}), outcome };
}

export const cancelledOutcome = (id: number): TaskOutcome => ({
  id,
  status: 'cancelled',
  text: `Task ${id} was cancelled before it finished; it has no result.`,
  foreign: false,
});

function outcomeOf(id: number, r: SubTurnResult, config: DelegationConfig): TaskOutcome {
  const foreign = (r.taint?.length ?? 0) > 0;
  if (r.cancelled) return cancelledOutcome(id);
  const answer = cutVisibly(r.reply, config.maxResultChars);
  if (r.stopReason === 'budget' || r.stopReason === 'max_rounds')
    return {
      id,
      status: 'budget',
      text: `Task ${id} ran out of budget and stopped without finishing: ${answer}`,
      foreign,
    };
  return { id, status: 'done', text: `Task ${id} answered:\n${answer}`, foreign };
}

/** The task's row ends once; a row another path settled first (a cancel) stays as it is. */
export function settleTask(brain: ToolContext['brain'], outcome: TaskOutcome): void {
  try {
    brain.assistant.finishDelegation({
      id: outcome.id,
      status: outcome.status,
      result: cutVisibly(outcome.text, 20_000),
    });
  } catch (err) {
    if (!(err instanceof BrainError && err.code === 'CONFLICT')) throw err;
  }
}
