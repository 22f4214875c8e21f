import { z } from 'zod';
import { WEBHOOK_EVENTS, type RetentionPolicy, type WebhooksConfig } from '../src/index.js';

// The config keys the brain's servers read from the same file as the assistant (`brain serve`,
// `brain agent`): the retention policy and webhooks out.

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
