import { z } from 'zod';
import { BrainError } from './errors.js';
import { DURABILITIES } from './db/open.js';
import {
  EMBEDDERS,
  LOG_LEVELS,
  rawConfig,
  type BrainConfig,
  type ConfigOverrides,
  type Env,
} from './config-env.js';
import { agentName, formatZodError } from './validation.js';

export {
  EMBEDDERS,
  defaultDbPath,
  type BrainConfig,
  type ConfigOverrides,
  type EmbedderChoice,
} from './config-env.js';

/** The full check, with a message for every problem. */
export const configSchema: z.ZodType<BrainConfig> = z.object({
  dbPath: z.string().min(1, 'must not be empty'),
  agent: agentName.optional(),
  embedder: z.enum(EMBEDDERS),
  ollamaHost: z.url({ message: 'must be a URL such as http://127.0.0.1:11434' }),
  embedModel: z.string().min(1),
  maxBodyBytes: z.coerce.number().int().positive(),
  logLevel: z.enum(LOG_LEVELS),
  durability: z.enum(DURABILITIES),
});

/**
 * The configuration from the environment (read in config-env.ts) and flags. Flags win over
 * variables, variables over defaults; an INVALID_INPUT BrainError names each setting that is
 * wrong. (`quickConfig` gives the same answer without zod when every value is plainly valid.)
 */
export function loadConfig(env: Env = process.env, overrides: ConfigOverrides = {}): BrainConfig {
  const parsed = configSchema.safeParse(rawConfig(env, overrides));
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
