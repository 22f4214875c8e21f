import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import {
  DEFAULT_MAX_ATTACHMENT_BYTES,
  DEFAULT_MAX_ATTACHMENTS_TOTAL_BYTES,
  DEFAULT_ATTACHMENT_TEXT_TIMEOUT_MS,
} from './attachments/limits.js';
import { DURABILITIES, type Durability } from './db/open.js';
import { check, object } from './input/check.js';
import { agentName, count, list, oneOf, text, url } from './input/fields.js';
import { EXTRACT_THREADS, type ExtractThreads } from './vocabulary.js';

// The brain's settings from the environment and flags, checked with the input kit: no zod, so
// `brain poll`, run by agents' hooks many times a minute, reads them without loading it.

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
  /** The largest file a message may carry, and the most bytes of files the brain keeps. */
  maxAttachmentBytes: number;
  maxAttachmentsTotalBytes: number;
  /** The time reading one send's PDF and HTML files for their text may take (ms). */
  attachmentTextTimeoutMs: number;
  /** Folders whose files the MCP server may attach by path; none: paths are refused. */
  attachRoots: string[];
  logLevel: (typeof LOG_LEVELS)[number];
  durability: Durability;
  /** Which threads the background extraction reads into knowledge. */
  extractThreads: ExtractThreads;
  /** The Litestream replica `brain replicate` and `brain restore` use when given none (a URL). */
  replicaUrl?: string | undefined;
  /** The owner's time zone (IANA), in which "last Tuesday" is read; undefined: the system's. */
  timeZone?: string | undefined;
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

const configInput = object({
  dbPath: text(Number.MAX_SAFE_INTEGER, { min: 1 }),
  agent: agentName().optional(),
  embedder: oneOf(EMBEDDERS),
  ollamaHost: url('must be a URL such as http://127.0.0.1:11434'),
  embedModel: text(Number.MAX_SAFE_INTEGER, { min: 1 }),
  maxBodyBytes: count(1),
  maxAttachmentBytes: count(1),
  maxAttachmentsTotalBytes: count(1),
  attachmentTextTimeoutMs: count(1),
  attachRoots: list(text(4096, { min: 1 }), { max: 64 }),
  logLevel: oneOf(LOG_LEVELS),
  durability: oneOf(DURABILITIES),
  extractThreads: oneOf(EXTRACT_THREADS),
  replicaUrl: text(4096, { min: 1 }).optional(),
  timeZone: text(100, { min: 1 })
    .refine(isTimeZone, 'must be an IANA time zone such as Europe/Paris')
    .optional(),
});

function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** Each setting as its reader knows it, in the words of an error. */
const CONFIG_NAMES: Record<keyof BrainConfig, string> = {
  dbPath: '--db / BRAIN_DB',
  agent: '--agent / BRAIN_AGENT',
  embedder: 'BRAIN_EMBEDDER',
  ollamaHost: 'OLLAMA_HOST',
  embedModel: 'BRAIN_EMBED_MODEL',
  maxBodyBytes: 'BRAIN_MAX_BODY_BYTES',
  maxAttachmentBytes: 'BRAIN_MAX_ATTACHMENT_BYTES',
  maxAttachmentsTotalBytes: 'BRAIN_MAX_ATTACHMENTS_TOTAL_BYTES',
  attachmentTextTimeoutMs: 'BRAIN_ATTACHMENT_TEXT_TIMEOUT_MS',
  attachRoots: 'BRAIN_ATTACH_ROOTS',
  logLevel: 'BRAIN_LOG_LEVEL',
  durability: 'BRAIN_DURABILITY',
  extractThreads: 'BRAIN_EXTRACT_THREADS',
  replicaUrl: 'BRAIN_REPLICA_URL',
  timeZone: 'BRAIN_TIME_ZONE',
};

/**
 * The configuration from the environment and flags. Flags win over variables, variables over
 * defaults; an INVALID_INPUT BrainError names each setting that is wrong.
 */
export function loadConfig(env: Env = process.env, overrides: ConfigOverrides = {}): BrainConfig {
  return check(configInput, rawConfig(env, overrides), {
    names: CONFIG_NAMES,
    context: 'configuration',
  });
}

/** The configuration as read, before any check. */
function rawConfig(env: Env, overrides: ConfigOverrides): Record<keyof BrainConfig, unknown> {
  return {
    dbPath: overrides.db ?? (env.BRAIN_DB || defaultDbPath(env)),
    agent: overrides.agent ?? (env.BRAIN_AGENT || undefined),
    embedder: env.BRAIN_EMBEDDER || 'auto',
    ollamaHost: env.OLLAMA_HOST ? normalizeHost(env.OLLAMA_HOST) : 'http://127.0.0.1:11434',
    embedModel: env.BRAIN_EMBED_MODEL || 'nomic-embed-text',
    maxBodyBytes: env.BRAIN_MAX_BODY_BYTES || 1_048_576,
    maxAttachmentBytes: env.BRAIN_MAX_ATTACHMENT_BYTES || DEFAULT_MAX_ATTACHMENT_BYTES,
    maxAttachmentsTotalBytes:
      env.BRAIN_MAX_ATTACHMENTS_TOTAL_BYTES || DEFAULT_MAX_ATTACHMENTS_TOTAL_BYTES,
    attachmentTextTimeoutMs:
      env.BRAIN_ATTACHMENT_TEXT_TIMEOUT_MS || DEFAULT_ATTACHMENT_TEXT_TIMEOUT_MS,
    // Separated as PATH is (':' here, ';' on Windows).
    attachRoots: (env.BRAIN_ATTACH_ROOTS || '').split(delimiter).filter(Boolean),
    logLevel: env.BRAIN_LOG_LEVEL || 'warn',
    durability: env.BRAIN_DURABILITY || 'normal',
    extractThreads: env.BRAIN_EXTRACT_THREADS || 'all',
    replicaUrl: env.BRAIN_REPLICA_URL || undefined,
    timeZone: env.BRAIN_TIME_ZONE || undefined,
  };
}

/** Ollama accepts `host:port` without a scheme; so do we. */
function normalizeHost(host: string): string {
  return /^[a-z]+:\/\//i.test(host) ? host : `http://${host}`;
}
