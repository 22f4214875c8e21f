import { readSync } from 'node:fs';
import type { Brain, BrainConfig, OpenBrainOptions, Poller } from '../src/index.js';
import type { QuickBrain } from '../src/quick-brain.js';
import type { Searcher } from '../src/searcher.js';
import { BrainError } from '../src/errors.js';

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

type TouchAgent = (name: string, options?: { wait?: boolean }) => boolean;

/**
 * What every handle on the brain offers: it closes, and the acting agent is marked seen through
 * it (a brain's `messages` section, or a one-shot handle's own `touchAgent`).
 */
type Handle = { close(): void } & (
  { touchAgent: TouchAgent } | { messages: { touchAgent: TouchAgent } }
);

export interface CommandContext<B extends Handle = Brain> {
  brain: B;
  config: BrainConfig;
  json: boolean;
  /** The acting agent; a usage error when neither --agent nor BRAIN_AGENT names one. */
  agent(): string;
}

/**
 * loadConfig → openBrain → run → close. The path every command but `poll` takes to the brain;
 * it creates the brain only for a command that writes (`creating(globals)`).
 *
 * The library is loaded here, when a command runs, and module by module rather than through
 * `src/index.ts`: `brain poll` is run by agents' hooks many times a minute, and the whole library
 * (embedders, evaluation, transfer …) costs more to load than the poll itself. The CLI's other
 * imports from `src/` are likewise of small modules, or dynamic.
 */
export async function withBrain<T>(
  globals: GlobalOptions & OpenMode,
  run: (ctx: CommandContext) => T | Promise<T>,
): Promise<T> {
  const { openBrain } = await import('../src/brain.js');
  return withHandle(globals, (options) => openBrain(options), run);
}

/** As withBrain, with a handle that can only poll and mark seen, and loads only what they need. */
export async function withPoller<T>(
  globals: GlobalOptions & OpenMode,
  run: (ctx: CommandContext<Poller>) => T | Promise<T>,
): Promise<T> {
  const { openPoller } = await import('../src/poller.js');
  return withHandle(globals, openPoller, run);
}

/** As withBrain, with a handle that can only search (`brain search`), and loads only that. */
export async function withSearcher<T>(
  globals: GlobalOptions & OpenMode,
  run: (ctx: CommandContext<Searcher>) => T | Promise<T>,
): Promise<T> {
  const { openSearcher } = await import('../src/searcher.js');
  return withHandle(globals, openSearcher, run);
}

/**
 * As withBrain, with a handle for `send`, `read`, `inbox`, `thread` and `provenance` that loads
 * only what they need.
 */
export async function withQuickBrain<T>(
  globals: GlobalOptions & OpenMode,
  run: (ctx: CommandContext<QuickBrain>) => T | Promise<T>,
): Promise<T> {
  const { openQuickBrain } = await import('../src/quick-brain.js');
  return withHandle(globals, openQuickBrain, run);
}

async function withHandle<B extends Handle, T>(
  globals: GlobalOptions & OpenMode,
  open: (options: OpenBrainOptions) => B | Promise<B>,
  run: (ctx: CommandContext<B>) => T | Promise<T>,
): Promise<T> {
  const { loadConfig } = await import('../src/config.js');
  const config = loadConfig(undefined, { db: globals.db, agent: globals.agent });
  const brain = await open({
    dbPath: config.dbPath,
    maxBodyBytes: config.maxBodyBytes,
    durability: config.durability,
    create: globals.create ?? false,
    // Said once, on stderr (never in --json's stdout): a new brain where one was expected is
    // how a mistyped path shows itself.
    onCreated: () => process.stderr.write(`brain: created a new brain at ${config.dbPath}\n`),
  });
  let acting = false;
  const ctx: CommandContext<B> = {
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
    const result = await run(ctx);
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
function markSeen(brain: Handle, agent: string): void {
  const touch = 'messages' in brain ? brain.messages.touchAgent : brain.touchAgent;
  touch(agent, { wait: false });
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
