import { BrainError } from '../errors.js';

/** What a hook may be told of. */
export const WEBHOOK_EVENTS = ['message', 'mention', 'thread.closed', 'knowledge'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** One hook of `webhooks` in the config, as checked (agent/server-config.ts). */
export interface WebhookConfig {
  url: string;
  /** The signing secret itself; prefer `secretEnv` (or `${VAR}`), which keeps it out of the file. */
  secret?: string | undefined;
  /** The name of the environment variable holding the signing secret. */
  secretEnv?: string | undefined;
  events: readonly WebhookEvent[];
  /** Only events for these agents (messages to them, mentions of them); all when absent. */
  agents?: readonly string[] | undefined;
  /** Put message bodies in the payload: off by default, a payload carries ids. */
  includeBodies: boolean;
  /** Failed attempts before a delivery goes to the dead-letter list. */
  maxAttempts: number;
}

/** `webhooks` in the config: hooks by name. */
export type WebhooksConfig = Record<string, WebhookConfig>;

/** A hook ready to post: its secret resolved, never to be printed. */
export interface Webhook {
  name: string;
  url: string;
  secret: string;
  events: readonly WebhookEvent[];
  agents: readonly string[] | undefined;
  includeBodies: boolean;
  maxAttempts: number;
}

/**
 * The hooks of a config with their secrets taken from it or from `env`. A secret variable that is
 * unset is an INVALID_INPUT naming the hook, never its value.
 */
export function resolveWebhooks(
  config: WebhooksConfig | undefined,
  env: Record<string, string | undefined>,
): Webhook[] {
  return Object.entries(config ?? {}).map(([name, hook]) => {
    const secret = hook.secret ?? env[hook.secretEnv!];
    if (!secret || secret.length < 16)
      throw new BrainError(
        'INVALID_INPUT',
        `webhooks.${name}.secretEnv: ${hook.secretEnv} must be set to a secret of at least 16 characters`,
      );
    return {
      name,
      url: hook.url,
      secret,
      events: hook.events,
      agents: hook.agents,
      includeBodies: hook.includeBodies,
      maxAttempts: hook.maxAttempts,
    };
  });
}
