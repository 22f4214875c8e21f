import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { BrainError } from './errors.js';
import { DURABILITIES } from './db/open.js';
import { agentName, formatZodError } from './validation.js';

export const EMBEDDERS = ['ollama', 'offline', 'none', 'auto'] as const;
export type EmbedderChoice = (typeof EMBEDDERS)[number];

const configSchema = z.object({
  dbPath: z.string().min(1, 'must not be empty'),
  agent: agentName.optional(),
  embedder: z.enum(EMBEDDERS),
  ollamaHost: z.url({ message: 'must be a URL such as http://127.0.0.1:11434' }),
  embedModel: z.string().min(1),
  maxBodyBytes: z.coerce.number().int().positive(),
  logLevel: z.enum(['error', 'warn', 'info', 'debug']),
  durability: z.enum(DURABILITIES),
});

export type BrainConfig = z.infer<typeof configSchema>;

export interface ConfigOverrides {
  db?: string | undefined;
  agent?: string | undefined;
}

type Env = Record<string, string | undefined>;

export function defaultDbPath(env: Env): string {
  const dataHome = env.XDG_DATA_HOME || join(env.HOME || homedir(), '.local', 'share');
  return join(dataHome, 'brain', 'brain.db');
}

/** The one place that reads the environment. Flags win over variables, variables over defaults. */
export function loadConfig(env: Env = process.env, overrides: ConfigOverrides = {}): BrainConfig {
  const raw = {
    dbPath: overrides.db ?? (env.BRAIN_DB || defaultDbPath(env)),
    agent: overrides.agent ?? (env.BRAIN_AGENT || undefined),
    embedder: env.BRAIN_EMBEDDER || 'auto',
    ollamaHost: env.OLLAMA_HOST ? normalizeHost(env.OLLAMA_HOST) : 'http://127.0.0.1:11434',
    embedModel: env.BRAIN_EMBED_MODEL || 'nomic-embed-text',
    maxBodyBytes: env.BRAIN_MAX_BODY_BYTES || 1_048_576,
    logLevel: env.BRAIN_LOG_LEVEL || 'warn',
    durability: env.BRAIN_DURABILITY || 'normal',
  };
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    throw new BrainError(
      'INVALID_INPUT',
      `configuration: ${formatZodError(parsed.error, CONFIG_NAMES)}`,
    );
  }
  return parsed.data;
}

const CONFIG_NAMES: Record<string, string> = {
  dbPath: '--db / BRAIN_DB',
  agent: '--agent / BRAIN_AGENT',
  embedder: 'BRAIN_EMBEDDER',
  ollamaHost: 'OLLAMA_HOST',
  embedModel: 'BRAIN_EMBED_MODEL',
  maxBodyBytes: 'BRAIN_MAX_BODY_BYTES',
  logLevel: 'BRAIN_LOG_LEVEL',
  durability: 'BRAIN_DURABILITY',
};

/** Ollama accepts `host:port` without a scheme; so do we. */
function normalizeHost(host: string): string {
  return /^[a-z]+:\/\//i.test(host) ? host : `http://${host}`;
}
