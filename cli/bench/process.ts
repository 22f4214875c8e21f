import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { childEnv } from '../config.js';
import { figuresOf, type OpFigures } from './measure.js';

/** The built CLI beside this module (dist/cli/bench → dist/bin/main.js). */
export const CLI_PATH = fileURLToPath(new URL('../main.js', import.meta.url));

/** What the one-shot commands are run on: ids and names from the built brain. */
export interface ProcessTargets {
  /** The agent that polls, reads and sends. */
  agent: string;
  /** Queries for `brain search` (by words: no embedder), taken in turn. */
  queries: string[];
  /** A knowledge id with a source, for `brain provenance`. */
  knowledgeId: string;
  /** A thread for `brain thread` and for the sends. */
  threadId: string;
  /** Who the sends go to. */
  recipient: string;
}

/** The arguments of the i-th run of a command. */
export type CommandArgs = (run: number) => string[];

/** Each command as an agent's hook or a person's shell runs it, with its arguments. */
export function processCommands(t: ProcessTargets): Record<string, CommandArgs> {
  return {
    poll_process: () => ['poll', '--agent', t.agent],
    search_process: (i) => ['search', t.queries[i % t.queries.length]!],
    provenance_process: () => ['provenance', t.knowledgeId],
    thread_process: () => ['thread', t.threadId],
    send_process: () => [
      'send',
      '--agent',
      t.agent,
      '--to',
      t.recipient,
      '--thread',
      t.threadId,
      '--body',
      'a reply sent by the benchmark',
    ],
    // The sends before it leave unread mail for the recipient: the reads find some.
    read_process: () => ['read', '--agent', t.recipient, '--limit', '10'],
  };
}

/**
 * One command as a whole process: node's start-up, loading the CLI, opening the brain, the
 * work and closing. Wall time of each run; the first is a warm-up and not counted.
 */
export function measureProcess(dbPath: string, command: CommandArgs, runs: number): OpFigures {
  return measureSpawns(
    (i) => [CLI_PATH, ...command(i), '--db', dbPath, '--json'],
    runs,
    (i) => `brain ${command(i)[0]}`,
  );
}

/**
 * `node -e 0`: node starting and stopping, the floor under every command's process time, measured
 * on the same run so that a loaded machine shows as a higher floor.
 */
export function measureNodeFloor(runs: number): OpFigures {
  return measureSpawns(
    () => ['-e', '0'],
    runs,
    () => 'node -e 0',
  );
}

function measureSpawns(
  argv: (run: number) => string[],
  runs: number,
  label: (run: number) => string,
): OpFigures {
  const samples: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const args = argv(i);
    const t0 = performance.now();
    const child = spawnSync(process.execPath, args, {
      env: childEnv(),
      encoding: 'utf8',
    });
    const ms = performance.now() - t0;
    if (child.status !== 0) {
      throw new Error(
        `${label(i)} exited with ${child.status ?? child.signal}: ${(child.stderr || String(child.error ?? '')).trim()}`,
      );
    }
    if (i > 0) samples.push(ms);
  }
  return figuresOf(samples);
}
