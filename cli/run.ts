import { readSync } from 'node:fs';
import type { Brain, BrainConfig, BrainCore, SectionName } from '../src/index.js';
import { BrainError, loadConfig, openBrain } from '../src/index.js';

/** Options every command accepts, wherever they stand on the command line. */
export interface GlobalOptions {
  agent?: string;
  db?: string;
  json?: boolean;
}

/**
 * Whether a command may make the brain it is pointed at. Commands that write (`send`, `remember`,
 * `import`, `chat` …) create a missing brain, with its folder, and say so on stderr; the others
 * (reads, and writes that need something already there: `read`, `ack`, `link`) fail NOT_FOUND
 * naming the path, so a mistyped --db never leaves an empty brain behind.
 */
export interface OpenMode {
  create?: boolean;
}

/** The globals of a command that writes: it makes the brain when there is none. */
export function creating(globals: GlobalOptions): GlobalOptions & OpenMode {
  return { ...globals, create: true };
}

export interface CommandContext<B extends BrainCore = Brain> {
  brain: B;
  config: BrainConfig;
  json: boolean;
  /** The acting agent; a usage error when neither --agent nor BRAIN_AGENT names one. */
  agent(): string;
}

/**
 * loadConfig → openBrain → run → close: the path every command takes to the brain. It creates
 * the brain only for a command that writes (`creating(globals)`), and opens it with the sections
 * the command names (all of them unless it names some): `brain poll`, run by agents' hooks many
 * times a minute, loads the messaging code and nothing of search, embedding or the assistant.
 */
export async function withBrain<T>(
  globals: GlobalOptions & OpenMode,
  run: (ctx: CommandContext) => T | Promise<T>,
): Promise<T>;
export async function withBrain<T, const S extends SectionName>(
  globals: GlobalOptions & OpenMode,
  run: (ctx: CommandContext<Brain<NoInfer<S>>>) => T | Promise<T>,
  sections: readonly S[],
): Promise<T>;
export async function withBrain<T>(
  globals: GlobalOptions & OpenMode,
  // The overloads say which brain the command gets: every section, or those it named.
  run: (ctx: never) => T | Promise<T>,
  sections?: readonly SectionName[],
): Promise<T> {
  const config = loadConfig(undefined, { db: globals.db, agent: globals.agent });
  const brain = await openBrain(
    {
      dbPath: config.dbPath,
      maxBodyBytes: config.maxBodyBytes,
      maxAttachmentBytes: config.maxAttachmentBytes,
      maxAttachmentsTotalBytes: config.maxAttachmentsTotalBytes,
      attachmentTextTimeoutMs: config.attachmentTextTimeoutMs,
      durability: config.durability,
      create: globals.create ?? false,
      // Said once, on stderr (never in --json's stdout): a new brain where one was expected is
      // how a mistyped path shows itself.
      onCreated: () => process.stderr.write(`brain: created a new brain at ${config.dbPath}\n`),
    },
    sections,
  );
  let acting = false;
  const ctx: CommandContext<BrainCore> = {
    brain,
    config,
    json: globals.json ?? false,
    agent() {
      if (!config.agent)
        throw new BrainError(
          'INVALID_INPUT',
          'agent: is required (use --agent NAME or set BRAIN_AGENT)',
        );
      acting = true;
      return config.agent;
    },
  };
  try {
    const result = await run(ctx as never);
    // The agent is seen once its command has succeeded: a rejected command changes nothing.
    if (acting && config.agent) markSeen(brain, config.agent);
    return result;
  } finally {
    brain.close();
  }
}

/**
 * Record that the agent was seen: bookkeeping, so never waiting for the write lock. When another
 * process holds it (or the disk takes no writes), the command has still done its job and the
 * agent's last-seen time is left as it was; the next command updates it.
 */
function markSeen(brain: BrainCore, agent: string): void {
  brain.touchAgent(agent, { wait: false });
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
  // readFileSync(0) fails with EAGAIN when stdin is a non-blocking pipe whose writer is slower
  // than we are (10 MB piped in): read in chunks, waiting briefly whenever nothing is there yet.
  const chunks: Buffer[] = [];
  const buffer = Buffer.alloc(1 << 16);
  for (;;) {
    let n: number;
    try {
      n = readSync(0, buffer, 0, buffer.length, null);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
      continue;
    }
    if (n === 0) break;
    chunks.push(Buffer.from(buffer.subarray(0, n)));
  }
  return Buffer.concat(chunks).toString('utf8');
}
