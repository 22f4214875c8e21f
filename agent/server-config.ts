import { z } from 'zod';
import {
  BrainError,
  WEBHOOK_EVENTS,
  type RetentionPolicy,
  type WebhooksConfig,
} from '../src/index.js';

// The config keys the brain's servers read from the same file as the assistant (`brain serve`,
// `brain agent`): the retention policy and webhooks out; and `brain agent`'s incoming hooks.

const days = z.number().positive('must be more than 0').max(36_500, 'must be at most 36500');
const limits = {
  /** Archive an active thread idle this many days (null: never). */
  archiveAfterDays: days.nullable().optional(),
  /** Close an archived thread idle this many days (null: never). */
  closeArchivedAfterDays: days.nullable().optional(),
};

/** `retention`: limits for every thread, and per thread tag. */
export const retentionSchema: z.ZodType<RetentionPolicy> = z.strictObject({
  ...limits,
  tags: z.record(z.string().min(1).max(100), z.strictObject(limits)).optional(),
});

const hookSchema = z
  .strictObject({
    url: z
      .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
      .max(2048, 'must be at most 2048 characters'),
    secret: z.string().min(16, 'must be at least 16 characters').optional(),
    secretEnv: z
      .string()
      .regex(/^[A-Z_][A-Z0-9_]*$/, 'must be an environment variable name')
      .optional(),
    events: z.array(z.enum(WEBHOOK_EVENTS)).min(1, 'must name at least one event'),
    agents: z.array(z.string().min(1)).optional(),
    includeBodies: z.boolean().default(false),
    maxAttempts: z.number().int().min(1).max(50).default(8),
  })
  .refine((h) => (h.secret === undefined) !== (h.secretEnv === undefined), {
    error: 'give exactly one of secret or secretEnv',
  });

/** `webhooks`: hooks out by name (src/webhooks/config.ts). */
export const webhooksSchema: z.ZodType<WebhooksConfig> = z.record(
  z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/i, 'a hook name is letters, digits, - and _'),
  hookSchema,
);

/** One incoming hook of `hooks`: `brain agent` listens for signed POSTs that start a turn. */
const hookInSchema = z
  .strictObject({
    /** The secret the sender signs with (docs/webhooks.md); or `secretEnv`, its variable. */
    secret: z.string().min(16, 'must be at least 16 characters').optional(),
    secretEnv: z
      .string()
      .regex(/^[A-Z_][A-Z0-9_]*$/, 'must be an environment variable name')
      .optional(),
    /** The session its turns run in (default `hook/<name>`). */
    session: z.string().min(1).max(200).optional(),
    /** The owner's words the payload follows: what to do with it. */
    prompt: z.string().min(1, 'must not be empty').max(4000),
    /** Where it listens: loopback unless said otherwise. */
    host: z.string().min(1).default('127.0.0.1'),
    port: z.number().int().min(0).max(65_535),
    /** Turns it may start in a minute; more are answered 429 and start nothing. */
    perMinute: z.number().int().min(1).max(600).default(6),
    /** The largest body it reads; a larger one is answered 413. */
    maxBodyBytes: z
      .number()
      .int()
      .min(1)
      .max(1_048_576)
      .default(64 * 1024),
  })
  .refine((h) => (h.secret === undefined) !== (h.secretEnv === undefined), {
    error: 'give exactly one of secret or secretEnv',
  });

export type HookInConfig = z.output<typeof hookInSchema>;

/** `hooks`: incoming hooks by name. */
export const hooksInSchema = z.record(
  z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/i, 'a hook name is letters, digits, - and _'),
  hookInSchema,
);

/** An incoming hook ready to listen: its secret resolved, never to be printed. */
export interface HookIn extends Omit<HookInConfig, 'secret' | 'secretEnv' | 'session'> {
  name: string;
  secret: string;
  session: string;
}

/** The incoming hooks with their secrets from the file or `env`; an unset variable is an error. */
export function resolveHooksIn(
  config: Record<string, HookInConfig> | undefined,
  env: Record<string, string | undefined>,
): HookIn[] {
  return Object.entries(config ?? {}).map(([name, { secret, secretEnv, session, ...rest }]) => {
    const value = secret ?? env[secretEnv!];
    if (!value || value.length < 16)
      throw new BrainError(
        'INVALID_INPUT',
        `hooks.${name}.secretEnv: ${secretEnv} must be set to a secret of at least 16 characters`,
      );
    return { ...rest, name, secret: value, session: session ?? `hook/${name}` };
  });
}
