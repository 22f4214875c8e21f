import { readFileSync } from 'node:fs';
import { loadConfig, openBrain, BrainError, type Brain, type BrainConfig } from '../src/index.js';

/** Options every command accepts, wherever they stand on the command line. */
export interface GlobalOptions {
  agent?: string;
  db?: string;
  json?: boolean;
}

export interface CommandContext {
  brain: Brain;
  config: BrainConfig;
  json: boolean;
  /** The acting agent; a usage error when neither --agent nor BRAIN_AGENT names one. */
  agent(): string;
}

/** loadConfig → openBrain → run → close. The one path every command takes to the brain. */
export async function withBrain<T>(
  globals: GlobalOptions,
  run: (ctx: CommandContext) => T | Promise<T>,
): Promise<T> {
  const config = loadConfig(undefined, { db: globals.db, agent: globals.agent });
  const brain = openBrain({ dbPath: config.dbPath, maxBodyBytes: config.maxBodyBytes });
  let touched = false;
  const ctx: CommandContext = {
    brain,
    config,
    json: globals.json ?? false,
    agent() {
      if (!config.agent)
        throw new BrainError(
          'INVALID_INPUT',
          'agent: is required (use --agent NAME or set BRAIN_AGENT)',
        );
      if (!touched) {
        brain.touchAgent(config.agent);
        touched = true;
      }
      return config.agent;
    },
  };
  try {
    return await run(ctx);
  } finally {
    brain.close();
  }
}

/** "a, b,c" → ["a", "b", "c"]. */
export function list(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** All of standard input, for `--body -` and friends. */
export function readStdin(): string {
  return readFileSync(0, 'utf8');
}
