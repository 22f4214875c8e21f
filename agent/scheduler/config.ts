import { Cron } from 'croner';
import { z } from 'zod';
import type { ChannelTarget } from '../channels/target.js';

/**
 * The scheduler's part of the assistant's config file: `heartbeat`, `cron`, `reminders`, `email`
 * and `catchUpMinutes`. Each key is checked here; agent/config.ts puts them together.
 */

export const zoneName = z.string().refine((tz) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    // RangeError: a zone this runtime does not know; the refinement reports it.
    return false;
  }
}, 'must be an IANA time zone such as Europe/Berlin');

/** `"telegram:<chat_id>"` or `"discord:<channel_id>"`. */
export const deliverTo = z
  .string()
  .regex(/^(telegram|discord):[^\s:]+$/, 'must be "telegram:<chat_id>" or "discord:<channel_id>"');

export function parseTarget(value: string | undefined): ChannelTarget | undefined {
  if (value === undefined) return undefined;
  const at = value.indexOf(':');
  return { channel: value.slice(0, at), chatId: value.slice(at + 1) };
}

/** A cron expression croner accepts (5 or 6 fields). */
export const cronExpression = z.string().refine((expr) => {
  try {
    new Cron(expr, { paused: true }).stop();
    return true;
  } catch {
    // croner throws a TypeError naming what it could not read; the refinement reports it.
    return false;
  }
}, 'must be a cron expression such as "0 8 * * 1-5"');

const clockTime = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time HH:MM');

const heartbeatSchema = z.strictObject({
  everyMinutes: z.number().int().min(1).max(1440).default(30),
  /** Ticks outside these hours are skipped; `end` before `start` spans midnight. */
  activeHours: z.strictObject({ start: clockTime, end: clockTime }).optional(),
  /** The zone of activeHours; default the config's `timeZone`, else the system's. */
  timezone: zoneName.optional(),
  deliverTo: deliverTo.optional(),
  enabled: z.boolean().default(true),
});

const reflectionSchema = z.strictObject({
  /** How often the brain goes over what it learned (hours). */
  everyHours: z.number().int().min(1).max(168).default(24),
  deliverTo: deliverTo.optional(),
  enabled: z.boolean().default(true),
});

const jobName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'must be lowercase letters, digits, - and _ (at most 64)');

const cronJob = z.strictObject({
  name: jobName,
  schedule: cronExpression,
  timezone: zoneName.optional(),
  /** What the job asks the assistant. */
  message: z.string().trim().min(1, 'must not be empty').max(10_000),
  /** `isolated`: the job's own session `cron/<name>`; `owner`: the owner's session. */
  session: z.enum(['isolated', 'owner']).default('isolated'),
  deliverTo: deliverTo.optional(),
  enabled: z.boolean().default(true),
  /** A run cut short by a crash: `retry` runs it once more on start, `skip` leaves it. */
  onInterrupt: z.enum(['retry', 'skip']).default('retry'),
});

const uniqueNames = (jobs: Array<{ name: string }>, ctx: z.RefinementCtx) => {
  const seen = new Set<string>();
  jobs.forEach((job, i) => {
    if (seen.has(job.name))
      ctx.addIssue({ code: 'custom', message: `duplicate name "${job.name}"`, path: [i, 'name'] });
    seen.add(job.name);
  });
};

const remindersSchema = z.strictObject({
  /** Where reminders go; default where the owner spoke last. */
  deliverTo: deliverTo.optional(),
  /** How often due reminders are looked for. */
  checkEverySeconds: z.number().int().min(1).max(3600).default(30),
});

const emailJob = z.strictObject({
  name: jobName,
  host: z.string().min(1, 'must not be empty'),
  port: z.number().int().min(1).max(65535).default(993),
  tls: z.boolean().default(true),
  user: z.string().min(1, 'must not be empty'),
  /** The environment variable holding the password (never the password itself). */
  passwordEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name'),
  folder: z.string().min(1).default('INBOX'),
  schedule: cronExpression,
  timezone: zoneName.optional(),
  /** How the model should judge and summarise new mail. */
  instructions: z.string().max(10_000).optional(),
  deliverTo: deliverTo.optional(),
  /** At most this many new messages are read per run. */
  maxMessages: z.number().int().min(1).max(200).default(20),
});

/** The file's keys, one line each in agent/config.ts's schema. */
export const schedulerFileKeys = {
  heartbeat: heartbeatSchema.optional(),
  cron: z.array(cronJob).max(200).superRefine(uniqueNames).default([]),
  reminders: remindersSchema.prefault({}),
  email: z.array(emailJob).max(50).superRefine(uniqueNames).default([]),
  reflection: reflectionSchema.prefault({}),
  /** A job missed while the service was down runs once on start if it was due this recently. */
  catchUpMinutes: z.number().int().min(0).max(10_080).default(60),
};

export type HeartbeatConfig = z.output<typeof heartbeatSchema>;
export type ReflectionConfig = z.output<typeof reflectionSchema>;
export type CronJobConfig = z.output<typeof cronJob>;
export type EmailJobConfig = z.output<typeof emailJob>;
export type RemindersConfig = z.output<typeof remindersSchema>;

/** What the scheduler runs with; the passwords come from the environment. */
export interface SchedulerConfig {
  heartbeat: HeartbeatConfig | undefined;
  cron: CronJobConfig[];
  reminders: RemindersConfig;
  email: EmailJobConfig[];
  reflection: ReflectionConfig;
  catchUpMinutes: number;
  /** Each email job's password, by job name (from its `passwordEnv`); absent when unset. */
  emailPasswords: Record<string, string | undefined>;
}

export function resolveSchedulerConfig(
  file: {
    heartbeat?: HeartbeatConfig | undefined;
    cron: CronJobConfig[];
    reminders: RemindersConfig;
    email: EmailJobConfig[];
    reflection: ReflectionConfig;
    catchUpMinutes: number;
  },
  env: Record<string, string | undefined>,
): SchedulerConfig {
  return {
    heartbeat: file.heartbeat,
    cron: file.cron,
    reminders: file.reminders,
    email: file.email,
    reflection: file.reflection,
    catchUpMinutes: file.catchUpMinutes,
    emailPasswords: Object.fromEntries(
      file.email.map((job) => [job.name, env[job.passwordEnv] || undefined]),
    ),
  };
}
