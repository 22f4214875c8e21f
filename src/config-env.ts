import { homedir } from 'node:os';
import { join } from 'node:path';
import { agentNameProblems } from './agent-name.js';
import { DURABILITIES, type Durability } from './db/open.js';

export const EMBEDDERS = ['ollama', 'offline', 'none', 'auto'] as const;
export type EmbedderChoice = (typeof EMBEDDERS)[number];
export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;

export interface BrainConfig {
  dbPath: string;
  agent?: string | undefined;
  embedder: EmbedderChoice;
  ollamaHost: string;
  embedModel: string;
  maxBodyBytes: number;
  logLevel: (typeof LOG_LEVELS)[number];
  durability: Durability;
}

export interface ConfigOverrides {
  db?: string | undefined;
  agent?: string | undefined;
}

export type Env = Record<string, string | undefined>;

export function defaultDbPath(env: Env): string {
  const dataHome = env.XDG_DATA_HOME || join(env.HOME || homedir(), '.local', 'share');
  return join(dataHome, 'brain', 'brain.db');
}

/** The configuration as read, before any check. Flags win over variables, variables over defaults. */
export function rawConfig(
  env: Env,
  overrides: ConfigOverrides,
): Record<keyof BrainConfig, unknown> {
  return {
    dbPath: overrides.db ?? (env.BRAIN_DB || defaultDbPath(env)),
    agent: overrides.agent ?? (env.BRAIN_AGENT || undefined),
    embedder: env.BRAIN_EMBEDDER || 'auto',
    ollamaHost: env.OLLAMA_HOST ? normalizeHost(env.OLLAMA_HOST) : 'http://127.0.0.1:11434',
    embedModel: env.BRAIN_EMBED_MODEL || 'nomic-embed-text',
    maxBodyBytes: env.BRAIN_MAX_BODY_BYTES || 1_048_576,
    logLevel: env.BRAIN_LOG_LEVEL || 'warn',
    durability: env.BRAIN_DURABILITY || 'normal',
  };
}

/**
 * The configuration when every value is plainly valid, checked without zod; undefined when one
 * is not, for `loadConfig` (config.ts) to check in full and say what is wrong. Whatever this
 * accepts, loadConfig's schema accepts with the same result (a test holds them to it): it lets
 * `brain poll`, run by agents' hooks many times a minute, start without loading zod.
 */
export function quickConfig(
  env: Env = process.env,
  overrides: ConfigOverrides = {},
): BrainConfig | undefined {
  const raw = rawConfig(env, overrides);
  const maxBodyBytes = Number(raw.maxBodyBytes);
  const ok =
    nonEmpty(raw.dbPath) &&
    (raw.agent === undefined || agentNameProblems(raw.agent).length === 0) &&
    oneOf(EMBEDDERS, raw.embedder) &&
    plainUrl(raw.ollamaHost) &&
    nonEmpty(raw.embedModel) &&
    Number.isSafeInteger(maxBodyBytes) &&
    maxBodyBytes > 0 &&
    oneOf(LOG_LEVELS, raw.logLevel) &&
    oneOf(DURABILITIES, raw.durability);
  return ok ? ({ ...raw, maxBodyBytes } as BrainConfig) : undefined;
}

const nonEmpty = (v: unknown): boolean => typeof v === 'string' && v.length > 0;
const oneOf = (values: readonly string[], v: unknown): boolean =>
  typeof v === 'string' && values.includes(v);

/** A URL that parses, in printable ASCII without spaces: nothing that zod would trim or drop. */
const plainUrl = (v: unknown): boolean =>
  typeof v === 'string' && /^[!-~]+$/.test(v) && URL.canParse(v);

/** Ollama accepts `host:port` without a scheme; so do we. */
function normalizeHost(host: string): string {
  return /^[a-z]+:\/\//i.test(host) ? host : `http://${host}`;
}
