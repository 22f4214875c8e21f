import type { Command } from 'commander';
import { BrainError, type DeliveryRecord, type DeliveryStatus } from '../../src/index.js';
import { bold, dim, printJson, println } from '../output.js';
import { withBrain, type GlobalOptions } from '../run.js';

type Globals = () => GlobalOptions;

const STATUSES: readonly DeliveryStatus[] = ['pending', 'delivered', 'dead'];

/** `brain webhooks`: the deliveries recorded (and the dead letters); `replay` queues one again. */
export function registerWebhooks(program: Command, globals: Globals): void {
  const webhooks = program
    .command('webhooks')
    .description('webhook deliveries, newest first (the server posts them; see docs/webhooks.md)')
    .option('--dead', 'only the dead letters: deliveries that failed every attempt')
    .option('--status <status>', 'only deliveries with this status: pending, delivered or dead')
    .option('--hook <name>', 'only deliveries to this hook')
    .option('--limit <n>', 'at most this many (1 to 1000)', '50')
    .action((opts: { dead?: boolean; status?: string; hook?: string; limit: string }) =>
      withBrain(
        globals(),
        ({ brain, json }) => {
          const status = opts.dead ? 'dead' : opts.status;
          if (status !== undefined && !STATUSES.includes(status as DeliveryStatus))
            throw new BrainError(
              'INVALID_INPUT',
              `--status: must be one of ${STATUSES.join(', ')}, got ${status}`,
            );
          const limit = Number(opts.limit);
          if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
            throw new BrainError(
              'INVALID_INPUT',
              `--limit: must be a whole number from 1 to 1000, got ${opts.limit}`,
            );
          const rows = brain.webhooks.deliveries({
            status: status as DeliveryStatus | undefined,
            hook: opts.hook,
            limit,
          });
          if (json) return printJson({ deliveries: rows });
          if (rows.length === 0) return println('no webhook deliveries');
          for (const d of rows) println(describe(d));
        },
        ['webhooks'],
      ),
    );

  webhooks
    .command('replay')
    .description('queue a delivery again (a dead letter once the receiver is mended)')
    .argument('<id>', 'the delivery (whd_…)')
    .action((id: string) =>
      withBrain(
        globals(),
        ({ brain, json }) => {
          const d = brain.webhooks.replay(id);
          if (json) return printJson(d);
          println(
            `queued ${d.id} to ${d.hook} again; a running brain serve or brain agent posts it`,
          );
        },
        ['webhooks'],
      ),
    );
}

function describe(d: DeliveryRecord): string {
  const outcome =
    d.status === 'delivered'
      ? `delivered ${d.delivered_at}`
      : d.status === 'dead'
        ? `dead after ${d.attempts} attempt(s): ${d.last_error ?? ''}`
        : d.attempts === 0
          ? 'pending'
          : `pending, ${d.attempts} failed (${d.last_error ?? ''}), next ${d.next_attempt_at}`;
  return `${bold(d.id)}  ${d.hook}  ${d.event}  ${outcome}  ${dim(d.created_at)}`;
}
