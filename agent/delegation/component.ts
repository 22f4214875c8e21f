import type { AssistantConfig } from '../config.js';
import { TurnCancelledError, type ServiceComponent, type ServiceHost } from '../contracts.js';
import type { TurnResult } from '../loop.js';
import { createInflight, errorText } from '../scheduler/turn.js';
import type { Tool } from '../tools/types.js';
import {
  cancelledOutcome,
  createDelegateTaskTool,
  settleTask,
  type BackgroundTask,
  type TaskOutcome,
} from './tool.js';

/**
 * Delegation as a component of `brain agent` (and of `brain chat`'s host): the delegate_task tool
 * for turns, and the background tasks it starts, each queued on the lane at the scheduled
 * priority, cancelled with the turn that started it, and told to the owner when it ends (where
 * the owner spoke last, as reminders are).
 */
export function createDelegation(
  initial: AssistantConfig,
  options: {
    /**
     * Whether tasks may run in the background (default true). `brain chat` has no channel to tell
     * the owner and ends with its turn, so there a task is always waited for.
     */
    background?: boolean;
  } = {},
): ServiceComponent {
  let host: ServiceHost | undefined;
  let config = initial;
  const inflight = createInflight();

  const start = (h: ServiceHost, task: BackgroundTask) => {
    let outcome: TaskOutcome | undefined;
    const queued = inflight.turn(
      h.enqueue({
        session: task.session,
        text: '',
        source: 'task',
        priority: 'scheduled',
        unattended: true,
        io: { onText: () => {} },
        async run(signal) {
          const ran = await task.run(AbortSignal.any([signal, task.parentSignal]));
          outcome = ran.outcome;
          if (!ran.result) throw new Error(ran.outcome.text);
          // The loop's TurnResult, seen by the tool through its SubTurnResult face.
          return ran.result as TurnResult;
        },
      }),
    );
    // Cancelling the turn that delegated it cancels the task, queued or running.
    const onParentAbort = () => queued.cancel('the turn that delegated it was cancelled');
    if (task.parentSignal.aborted) onParentAbort();
    else task.parentSignal.addEventListener('abort', onParentAbort, { once: true });
    void inflight.track(
      queued.done
        .then(
          () => outcome!,
          (err: unknown) => {
            // Cancelled before it started: its row is settled here; otherwise runTask did.
            const ended =
              outcome ??
              (err instanceof TurnCancelledError ? cancelledOutcome(task.id) : undefined);
            const settled = ended ?? {
              id: task.id,
              status: 'failed' as const,
              text: `Task ${task.id} failed: ${errorText(err)}`,
              foreign: false,
            };
            settleTask(h.brain, settled);
            return settled;
          },
        )
        .then(async (ended) => {
          task.parentSignal.removeEventListener('abort', onParentAbort);
          h.log('info', 'task.end', { id: task.id, status: ended.status });
          const note = ended.foreign
            ? '\n(This answer comes from a task that read content from outside you.)'
            : '';
          if (!(await h.deliver(`${ended.text}${note}`)))
            h.log('warn', 'task.undelivered', { id: task.id });
        })
        .catch((err: unknown) =>
          h.log('warn', 'task.failed', { id: task.id, error: errorText(err) }),
        ),
    );
  };

  const tool = createDelegateTaskTool({
    config: () => config.delegation,
    ...(options.background === false
      ? {}
      : {
          background: (task: BackgroundTask) => {
            if (!host) throw new Error('delegation: not started');
            start(host, task);
          },
        }),
  }) as Tool;

  return {
    name: 'delegation',
    async start(h) {
      host = h;
      config = h.config();
    },
    async stop() {
      await inflight.settle('the service is stopping');
    },
    reconfigure(next) {
      config = next;
    },
    /** Offered to every turn while `delegation.maxDepth` allows; the driver's profile still decides. */
    tools(): readonly Tool[] {
      return config.delegation.maxDepth > 0 ? [tool] : [];
    },
  };
}
