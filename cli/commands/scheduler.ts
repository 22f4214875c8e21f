import type { Command } from 'commander';
import type { CronRunRecord, ReminderRecord, TaskRecord } from '../../src/index.js';
import type { Delivery } from '../../agent/index.js';
import { BrainError } from '../../src/index.js';
import { bold, dim, printJson, println, shortTime, zonedTime } from '../output.js';
import { creating, withBrain, type GlobalOptions } from '../run.js';
import { loadAssistantConfigFile } from '../assistant-config.js';

interface ConfigOption {
  config?: string;
}

const CONFIG_HELP =
  'the assistant config (else BRAIN_ASSISTANT_CONFIG, else ~/.config/brain/assistant.json)';

/**
 * `brain heartbeat`, `brain cron list | run NAME | history NAME`, `brain reminders`,
 * `brain tasks`: the assistant's scheduler from the terminal. The listings only read; the two
 * that run something (`heartbeat`, `cron run`) run one turn in this process (agent/index.ts).
 */
export function registerScheduler(program: Command, globals: () => GlobalOptions): void {
  program
    .command('heartbeat')
    .description('run one heartbeat tick now; prints delivered or suppressed, and why')
    .option('--force', 'ignore active hours and a missing or empty HEARTBEAT.md')
    .option('--config <file>', CONFIG_HELP)
    .action(async (opts: ConfigOption & { force?: boolean }) => {
      // A bad config is refused before the brain is opened (or made).
      const config = await loadConfig(opts.config);
      return withBrain(creating(globals()), async ({ brain, json }) => {
        const { runHeartbeat } = await import('../../agent/index.js');
        const outcome = await runHeartbeat({ brain, config, force: opts.force ?? false });
        if (json)
          return printJson({
            status: outcome.status === 'delivered' ? 'delivered' : 'suppressed',
            skipped: outcome.status === 'skipped',
            reason: outcome.reason,
            reply: outcome.reply ?? null,
            delivered_to: outcome.deliveries.flatMap((d) => (d.to ? [d.to] : [])),
          });
        if (outcome.deliveries.length > 0) println(deliveryText(outcome.deliveries));
        if (outcome.status === 'delivered') return println('delivered');
        println(`suppressed: ${outcome.reason}`);
      });
    });

  const cron = program.command('cron').description("the assistant's cron jobs");
  cron
    .command('list')
    .description('the configured jobs, their next time and their last run')
    .option('--config <file>', CONFIG_HELP)
    .action((opts: ConfigOption) =>
      withBrain(globals(), async ({ brain, json }) => {
        const config = await loadConfig(opts.config);
        const { Cron } = await import('croner');
        const rows = config.scheduler.cron.map((job) => {
          const next = job.enabled
            ? new Cron(job.schedule, { timezone: job.timezone ?? config.timeZone, paused: true })
                .nextRun()
                ?.toISOString()
            : undefined;
          const last = brain.assistant.cronRuns({ job: job.name, limit: 1 })[0];
          return { ...job, next: next ?? null, last: last ?? null };
        });
        if (json) return printJson({ jobs: rows });
        if (rows.length === 0) return println('no cron jobs in the config');
        for (const r of rows)
          println(
            `${bold(r.name)}  ${r.schedule}${r.timezone ? ` ${r.timezone}` : ''}  ${r.enabled ? `next ${r.next ? shortTime(r.next) : 'never'}` : 'disabled'}  ${dim(r.last ? `last ${formatRun(r.last)}` : 'never ran')}`,
          );
      }),
    );
  cron
    .command('run <name>')
    .description('run a job now, as its schedule would (recorded in its history)')
    .option('--config <file>', CONFIG_HELP)
    .action(async (name: string, opts: ConfigOption) => {
      // The config and the job in it are checked before the brain is opened: a mistyped name
      // makes no brain.
      const config = await loadConfig(opts.config);
      if (!config.scheduler.cron.some((job) => job.name === name))
        throw new BrainError('NOT_FOUND', `no cron job named ${name} in the config`);
      return withBrain(creating(globals()), async ({ brain, json }) => {
        const { runCron } = await import('../../agent/index.js');
        const { result, deliveries: printed } = await runCron({ brain, config, job: name });
        if (result.status === 'claimed') throw new BrainError('CONFLICT', result.reason);
        if (json)
          return printJson({
            run: result.run,
            reply: printed.map((d) => d.text).join('\n\n') || null,
            delivered_to: printed.flatMap((d) => (d.to ? [d.to] : [])),
          });
        if (printed.length > 0) println(deliveryText(printed));
        println(formatRun(result.run));
      });
    });
  cron
    .command('history <name>')
    .description("a job's runs, newest first")
    .option('--limit <n>', 'at most this many', '20')
    .action((name: string, opts: { limit: string }) =>
      withBrain(globals(), ({ brain, json }) => {
        const runs = brain.assistant.cronRuns({ job: name, limit: opts.limit });
        if (json) return printJson({ runs });
        if (runs.length === 0) return println(`no runs of ${name}`);
        for (const r of runs) println(formatRun(r));
      }),
    );

  program
    .command('reminders')
    .description("the assistant's pending reminders, soonest first")
    .option('--all', 'with the done and cancelled ones, newest first')
    .option('--config <file>', CONFIG_HELP)
    .action((opts: ConfigOption & { all?: boolean }) =>
      withBrain(globals(), async ({ brain, json }) => {
        const reminders = brain.assistant.reminders({ all: opts.all ?? false });
        if (json) return printJson({ reminders });
        if (reminders.length === 0) return println('no reminders');
        const zone = await ownerZone(opts.config);
        for (const r of reminders) println(formatReminder(r, zone));
      }),
    );

  program
    .command('tasks')
    .description("the owner's tasks kept by the assistant (pending ones by default)")
    .option('--done', 'only the done ones')
    .option('--all', 'pending and done')
    .option('--config <file>', CONFIG_HELP)
    .action((opts: ConfigOption & { done?: boolean; all?: boolean }) =>
      withBrain(globals(), async ({ brain, json }) => {
        const status = opts.all ? 'all' : opts.done ? 'done' : 'pending';
        const tasks = brain.assistant.tasks({ status });
        if (json) return printJson({ tasks });
        if (tasks.length === 0) return println(`no ${status === 'all' ? '' : `${status} `}tasks`);
        const zone = await ownerZone(opts.config);
        for (const t of tasks) println(formatTask(t, zone));
      }),
    );
}

const loadConfig = loadAssistantConfigFile;

/** The owner's time zone for listings: the assistant config's `timeZone`, else the system's. */
async function ownerZone(file: string | undefined): Promise<string | undefined> {
  return (await loadConfig(file)).timeZone;
}

/** The texts with where each went, as the human output prints them. */
function deliveryText(deliveries: Delivery[]): string {
  return deliveries
    .map((d) => `${d.text}\n\n${d.to ? `delivered to ${d.to}` : `not delivered (${d.where})`}`)
    .join('\n\n');
}

function formatRun(r: CronRunRecord): string {
  const late = r.late ? ' late' : '';
  const delivered = r.outcome === 'ok' ? (r.delivered ? ' delivered' : ' not delivered') : '';
  const detail = r.detail ? ` ${dim(r.detail)}` : '';
  return `${r.id}  due ${shortTime(r.due_at)}  ${r.outcome}${late}${delivered}${detail}`;
}

function formatReminder(r: ReminderRecord, zone: string | undefined): string {
  const repeat = r.repeat ? ` repeats "${r.repeat}"` : '';
  const status = r.status === 'pending' ? '' : ` ${r.status}${r.late ? ' (late)' : ''}`;
  return `${r.id}  ${zonedTime(r.due_at, zone)}  [${r.mode}]${repeat}${status}  ${r.text}`;
}

function formatTask(t: TaskRecord, zone: string | undefined): string {
  const due = t.due_at ? `  due ${zonedTime(t.due_at, zone)}` : '';
  const done = t.status === 'done' ? ` ${dim('done')}` : '';
  return `${t.id}  [${t.priority}]${due}${done}  ${t.title}${t.message_id ? `  ${dim(t.message_id)}` : ''}`;
}
