import { Cron } from 'croner';
import { BrainError, RETRIED, type CronRunRecord } from '../../src/index.js';
import type { AssistantConfig } from '../config.js';
import type { ServiceComponent, ServiceHost } from '../contracts.js';
import { parseTarget, type CronJobConfig } from './config.js';
import { createInflight, errorText, scheduledTurn } from './turn.js';
import { cronSession } from '../conversation/sessions.js';

/** What `cron run NAME` and the tests get from a run. */
export type CronRunResult =
  { status: 'ran'; run: CronRunRecord } | { status: 'claimed'; reason: string };

export interface CronComponent extends ServiceComponent {
  /**
   * Run a job now (`brain cron run NAME`), its due time this second. `via`: a host to run it
   * through when the component is not started (the CLI: nothing is scheduled or caught up).
   */
  runNow(name: string, via?: ServiceHost): Promise<CronRunResult>;
  /** The jobs scheduled, with their next time. */
  jobs(): Array<{ name: string; schedule: string; next: Date | null }>;
}

const sinceKey = (job: string) => `cron-since:${job}`;

/**
 * Cron jobs with croner. Each due time is claimed in the brain (a row of cron_runs) in a short
 * transaction before its turn is queued, so no due time runs twice, across restarts included;
 * croner's `protect` keeps one job's runs from overlapping. On start, the latest due time missed
 * while the service was down runs once if it is within `catchUpMinutes`, else is recorded skipped.
 */
export function createCronComponent(): CronComponent {
  let host: ServiceHost | undefined;
  const scheduled = new Map<string, { job: CronJobConfig; cron: Cron; key: string }>();
  const running = new Set<string>();
  const inflight = createInflight();

  const need = (): ServiceHost => {
    if (!host) throw new Error('cron: not started');
    return host;
  };

  async function run(
    job: CronJobConfig,
    due: Date,
    late: boolean,
    retry?: CronRunRecord,
  ): Promise<CronRunResult> {
    const h = need();
    const claim =
      retry ?? h.brain.assistant.claimCronRun({ job: job.name, due_at: due.toISOString(), late });
    if (!claim) {
      h.log('debug', 'cron.already_claimed', { job: job.name, due: due.toISOString() });
      return { status: 'claimed', reason: `the run due ${due.toISOString()} was claimed already` };
    }
    // A retry says so in its history, whatever its end; that also keeps it from a second retry.
    const note = (detail: string) =>
      retry ? [RETRIED, detail].filter(Boolean).join('; ') : detail;
    running.add(job.name);
    h.log('info', 'cron.run', { job: job.name, due: claim.due_at, late });
    try {
      const session = job.session === 'owner' ? h.ownerSession() : cronSession(job.name);
      const turn = inflight.turn(scheduledTurn(h, { session, text: job.message, source: 'cron' }));
      const result = await turn.done;
      const reply = result.reply.trim();
      const delivered =
        reply !== '' && !result.cancelled
          ? await h.deliver(reply, parseTarget(job.deliverTo))
          : false;
      const done = h.brain.assistant.finishCronRun({
        id: claim.id,
        outcome: result.cancelled ? 'error' : 'ok',
        delivered,
        detail: note(result.cancelled ? 'cancelled' : delivered ? '' : 'nothing delivered'),
      });
      h.log('info', 'cron.done', { job: job.name, delivered });
      return { status: 'ran', run: done };
    } catch (err) {
      h.log('warn', 'cron.failed', { job: job.name, error: errorText(err) });
      const done = h.brain.assistant.finishCronRun({
        id: claim.id,
        outcome: 'error',
        detail: note(errorText(err)).slice(0, 2000),
      });
      return { status: 'ran', run: done };
    } finally {
      running.delete(job.name);
    }
  }

  function schedule(job: CronJobConfig, catchUp: boolean): void {
    const h = need();
    const now = h.clock();
    const since = new Date(
      h.brain.assistant.initSchedulerState(sinceKey(job.name), now.toISOString()) as string,
    );
    const cron = new Cron(
      job.schedule,
      {
        timezone: job.timezone ?? h.config().timeZone,
        protect: () => h.log('warn', 'cron.overlap', { job: job.name }),
      },
      async (self: Cron) => {
        // The due time this call serves: the latest match at or before now (croner may be late).
        const due = self.previousRuns(1, new Date(h.clock().getTime() + 1))[0];
        if (due) await inflight.track(run(job, due, false));
      },
    );
    scheduled.set(job.name, { job, cron, key: JSON.stringify(job) });
    if (!catchUp) return;
    const missed = cron.previousRuns(1, now)[0];
    if (!missed || missed.getTime() <= since.getTime()) return;
    const ageMin = (now.getTime() - missed.getTime()) / 60_000;
    if (ageMin <= h.config().scheduler.catchUpMinutes) {
      void inflight.track(run(job, missed, true));
      return;
    }
    const skipped = h.brain.assistant.claimCronRun({
      job: job.name,
      due_at: missed.toISOString(),
      outcome: 'skipped',
      detail: `missed while down, ${Math.round(ageMin)} min ago (catchUpMinutes ${h.config().scheduler.catchUpMinutes})`,
    });
    if (skipped)
      h.log('info', 'cron.skipped', {
        job: job.name,
        due: skipped.due_at,
        ageMinutes: Math.round(ageMin),
      });
  }

  /**
   * Runs a crashed service left `running` become `interrupted`; a job whose policy is `retry`
   * runs its interrupted due time once more (a retry that is interrupted too stays so).
   */
  function resumeInterrupted(config: AssistantConfig): void {
    const h = need();
    for (const r of h.brain.assistant.interruptCronRuns()) {
      const job = config.scheduler.cron.find((j) => j.name === r.job && j.enabled);
      const retry = job?.onInterrupt === 'retry' ? h.brain.assistant.retryCronRun(r.id) : undefined;
      h.log('warn', 'cron.interrupted', { job: r.job, due: r.due_at, retry: Boolean(retry) });
      if (job && retry) void inflight.track(run(job, new Date(r.due_at), r.late, retry));
    }
  }

  function unschedule(name: string): void {
    scheduled.get(name)?.cron.stop();
    scheduled.delete(name);
  }

  function apply(config: AssistantConfig, catchUp: boolean): void {
    const wanted = new Map(config.scheduler.cron.filter((j) => j.enabled).map((j) => [j.name, j]));
    for (const [name, entry] of scheduled) {
      const next = wanted.get(name);
      if (!next || JSON.stringify(next) !== entry.key) unschedule(name);
    }
    for (const [name, job] of wanted) if (!scheduled.has(name)) schedule(job, catchUp);
  }

  return {
    name: 'cron',
    async start(h) {
      host = h;
      resumeInterrupted(h.config());
      apply(h.config(), true);
    },
    async stop() {
      for (const name of [...scheduled.keys()]) unschedule(name);
      await inflight.settle('the service is stopping');
    },
    reconfigure(config) {
      if (!host) return;
      apply(config, false);
      host.log('info', 'cron.reconfigured', { jobs: scheduled.size });
    },
    async check(h) {
      return h.config().scheduler.cron.map((job) => ({
        name: `cron ${job.name}`,
        ok: true,
        detail: job.enabled
          ? `next ${new Cron(job.schedule, { timezone: job.timezone ?? h.config().timeZone, paused: true }).nextRun()?.toISOString() ?? 'never'}`
          : 'disabled',
      }));
    },
    async runNow(name, via) {
      if (!host && via) host = via;
      const h = need();
      const job = h.config().scheduler.cron.find((j) => j.name === name);
      if (!job) throw new BrainError('NOT_FOUND', `no cron job named ${name} in the config`);
      if (running.has(name)) throw new BrainError('CONFLICT', `${name} is running`);
      const now = h.clock();
      return inflight.track(run(job, new Date(Math.floor(now.getTime() / 1000) * 1000), false));
    },
    jobs() {
      return [...scheduled.values()].map(({ job, cron }) => ({
        name: job.name,
        schedule: job.schedule,
        next: cron.nextRun(),
      }));
    },
  };
}
