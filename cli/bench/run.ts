import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BrainError,
  measureStorage,
  openBrain,
  type Brain,
  type Embedder,
} from '../../src/index.js';
import { createJsonFileDesign, synapseMessages, type SynapseMessage } from './baseline.js';
import { buildBrain, type BuildStats } from './build.js';
import { benchText } from './corpus.js';
import { checkGoals, type GoalResult } from './goals.js';
import { measure, type OpFigures } from './measure.js';
import { chooseAgents, measureOps } from './ops.js';
import { measureNodeFloor, measureProcess, processCommands } from './process.js';
import { createProgress, type Progress } from './progress.js';
import { benchQueries } from './queries.js';
import type { TextGenerator } from './text.js';
import { embedEverything } from './vectors.js';

export interface BenchOptions {
  messages: number;
  /** A LoCoMo file given by the user (must exist); the generated chat when undefined. */
  corpus?: string;
  vectors: boolean;
  /** Time budget per operation, ms. */
  timeMs: number;
  /** Runs of `brain poll` as a process. */
  runs: number;
  /** Messages in the JSON file of the baseline. */
  baselineMessages: number;
}

export interface BenchIo {
  /** A line for people on stderr (notices, what is being measured). */
  notice(line: string): void;
  /** Raw progress output (stderr). */
  progress(text: string): void;
  tty: boolean;
}

/** Where the benchmark builds: a folder of its own (temporary unless given), cleaned up after. */
export interface Workspace {
  dir: string;
  dbPath: string;
  jsonPath: string;
  /** Remove what the benchmark made (the whole folder if it made the folder). */
  cleanup(): void;
}

export function prepareWorkspace(dir: string | undefined): Workspace {
  if (dir === undefined) {
    const made = mkdtempSync(join(tmpdir(), 'brain-bench-'));
    return {
      dir: made,
      dbPath: join(made, 'bench.db'),
      jsonPath: join(made, 'synapse.json'),
      cleanup: () => rmSync(made, { recursive: true, force: true }),
    };
  }
  const dbPath = join(dir, 'bench.db');
  const jsonPath = join(dir, 'synapse.json');
  if (existsSync(dbPath)) {
    throw new BrainError(
      'INVALID_INPUT',
      `--dir: ${dir} already holds bench.db; remove it or choose another folder`,
    );
  }
  mkdirSync(dir, { recursive: true });
  return {
    dir,
    dbPath,
    jsonPath,
    cleanup: () => {
      for (const f of [dbPath, `${dbPath}-wal`, `${dbPath}-shm`, jsonPath])
        rmSync(f, { force: true });
    },
  };
}

export interface QueryFigure {
  query: string;
  hits: number;
  median_ms: number;
}

/** The one document `brain bench --json` prints. */
export interface BenchDocument {
  messages: number;
  db_bytes: number;
  bytes_per_message: number;
  ops: Record<string, OpFigures>;
  baseline: {
    design: string;
    messages: number;
    file_bytes: number;
    ops: { send: OpFigures; poll: OpFigures };
    /** Baseline p50 / brain p50. */
    ratios: { send: number; poll: number; send_full: number };
  };
  goals: Record<string, GoalResult>;
  build: Omit<BuildStats, 'unread' | 'knowledge_sample' | 'long_thread'> & {
    messages_per_s: number;
    unread_total: number;
    unread: Record<string, number>;
    long_thread_messages: number;
    body_bytes_per_message: number;
    corpus: string;
  };
  agents: { poller: string; poller_unread: number; backlog: string; backlog_unread: number };
  vectors: { items: number; seconds: number; model: string; db_bytes: number } | null;
  bytes_by_object: Record<string, number>;
  search_queries: QueryFigure[];
  machine: { cores: number; cpu: string; node: string; platform: string; date: string };
}

/** Each query alone: its hits and the median of three runs (which queries are the slow ones). */
function profileQueries(brain: Brain, queries: string[]): QueryFigure[] {
  return queries.map((query) => {
    const times: number[] = [];
    let hits = 0;
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      hits = brain.search.search({ query }).hits.length;
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    return { query, hits, median_ms: times[1]! };
  });
}

export async function runBench(
  options: BenchOptions,
  workspace: Workspace,
  io: BenchIo,
): Promise<BenchDocument> {
  const text = await benchText(options.corpus, 1);
  const breathe = () => new Promise<void>((resolve) => setImmediate(resolve));

  // Build through the library's write paths, many writes per transaction. A larger page cache
  // on this connection speeds the build; it changes nothing stored.
  let brain = await openBrain({ dbPath: workspace.dbPath, cacheMiB: 256 });
  let stats: BuildStats;
  try {
    const progress = createProgress('building', options.messages, 'messages', io.progress, io.tty);
    stats = await buildBrain(brain, {
      messages: options.messages,
      text,
      onProgress: (done) => progress.update(done),
      yieldEvery: breathe,
    });
    progress.end();
  } finally {
    brain.close();
  }
  io.notice(
    `built ${options.messages.toLocaleString('en-US')} messages in ${stats.seconds.toFixed(1)} s`,
  );

  // Measure on a fresh connection with the settings every user gets.
  const storage = measureStorage(workspace.dbPath);
  const dbBytes = storage.bytes;
  const byObject = storage.byObject;
  brain = await openBrain({ dbPath: workspace.dbPath });
  try {
    const queries = benchQueries(text);
    let vectors: BenchDocument['vectors'] = null;
    let embedder: Embedder | undefined;
    if (options.vectors) {
      let progress: Progress | undefined;
      const embedded = await embedEverything(brain, queries, (done, total) => {
        progress ??= createProgress('embedding', total, 'items', io.progress, io.tty);
        progress.update(done);
      });
      progress?.end();
      embedder = embedded.embedder;
      vectors = {
        items: embedded.items,
        seconds: embedded.seconds,
        model: embedded.embedder.model,
        db_bytes: measureStorage(workspace.dbPath, { byObject: false }).bytes,
      };
      io.notice(`embedded ${embedded.items} items in ${embedded.seconds.toFixed(1)} s`);
    }

    const ops = await measureOps({
      brain,
      stats,
      queries,
      text,
      timeMs: options.timeMs,
      embedder,
      onOp: (name) => io.notice(`measuring ${name}`),
    });
    const searchQueries = profileQueries(brain, queries);
    const agents = chooseAgents(stats);
    brain.close();
    const commands = processCommands({
      agent: agents.poller,
      queries,
      knowledgeId: stats.knowledge_sample[0]!,
      threadId: stats.long_thread.id,
      recipient: agents.reader,
    });
    io.notice(`measuring node_process (${options.runs} runs of node -e 0)`);
    ops.node_process = measureNodeFloor(options.runs);
    for (const [name, command] of Object.entries(commands)) {
      io.notice(`measuring ${name} (${options.runs} runs of brain ${command(0)[0]})`);
      ops[name] = measureProcess(workspace.dbPath, command, options.runs);
    }

    io.notice(`measuring the baseline: one JSON file of ${options.baselineMessages} messages`);
    const baseline = await measureBaseline(options, workspace.jsonPath, text);
    const ratio = (a: OpFigures, b: OpFigures | undefined) =>
      b && b.p50_ms > 0 ? a.p50_ms / b.p50_ms : 0;
    const ratios = {
      send: ratio(baseline.ops.send, ops.send),
      poll: ratio(baseline.ops.poll, ops.poll),
      send_full: ratio(baseline.ops.send, ops.send_full),
    };
    const bytesPerMessage = dbBytes / options.messages;
    const unreadTotal = Object.values(stats.unread).reduce((a, b) => a + b, 0);
    const { knowledge_sample: _sample, long_thread: longThread, ...counts } = stats;
    return {
      messages: options.messages,
      db_bytes: dbBytes,
      bytes_per_message: bytesPerMessage,
      ops,
      baseline: { ...baseline, ratios },
      goals: checkGoals({ ops, bytes_per_message: bytesPerMessage, ratios }),
      build: {
        ...counts,
        messages_per_s: stats.messages / stats.seconds,
        unread_total: unreadTotal,
        long_thread_messages: longThread.messages,
        body_bytes_per_message: stats.body_bytes / stats.messages,
        corpus: text.source,
      },
      agents: {
        poller: agents.poller,
        poller_unread: stats.unread[agents.poller] ?? 0,
        backlog: agents.backlog,
        backlog_unread: stats.unread[agents.backlog] ?? 0,
      },
      vectors,
      bytes_by_object: byObject,
      search_queries: searchQueries,
      machine: {
        cores: availableParallelism(),
        cpu: cpus()[0]?.model ?? 'unknown',
        node: process.version,
        platform: `${process.platform} ${process.arch}`,
        date: new Date().toISOString(),
      },
    };
  } finally {
    brain.close();
  }
}

async function measureBaseline(options: BenchOptions, path: string, text: TextGenerator) {
  const design = createJsonFileDesign(path, synapseMessages(options.baselineMessages, text));
  const fileBytes = design.bytes();
  const fresh: SynapseMessage[] = synapseMessages(64, text, 9);
  let i = 0;
  const send = await measure(
    () => design.send({ ...fresh[i % fresh.length]!, id: `bench-${i++}` }),
    { timeMs: options.timeMs, minIterations: 10 },
  );
  const poll = await measure(() => design.poll('nova'), {
    timeMs: options.timeMs,
    minIterations: 10,
  });
  return {
    design:
      'one JSON file {"messages": […]}: read, parsed, changed, rewritten and fsynced on every send; read and parsed whole on every poll',
    messages: options.baselineMessages,
    file_bytes: fileBytes,
    ops: { send, poll },
  };
}
