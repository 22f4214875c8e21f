import { openBrain, type Brain, type Embedder } from '../../src/index.js';
import { AGENTS, BACKLOG_AGENTS, type BuildStats } from './build.js';
import { performance } from 'node:perf_hooks';
import { figuresOf, measure, type OpFigures } from './measure.js';
import type { TextGenerator } from './text.js';

export interface OpsInput {
  brain: Brain;
  stats: BuildStats;
  queries: string[];
  text: TextGenerator;
  timeMs: number;
  /** Set when every item has a vector: an embedder that answers the queries' vectors at once. */
  embedder?: Embedder;
  /** Told before each operation. */
  onOp?: (name: string) => void;
}

/** Agents the operations act as, chosen from the built brain's unread counts. */
export interface OpsAgents {
  /** The ordinary agent with the most unread mail (poll). */
  poller: string;
  /** The agent with the largest backlog (poll_backlog). */
  backlog: string;
  /** An agent whose inbox is emptied, then given exactly ten messages per read. */
  reader: string;
}

export function chooseAgents(stats: BuildStats): OpsAgents {
  const backlogs = new Set<string>(BACKLOG_AGENTS);
  const byUnread = (names: string[]) =>
    [...names].sort((a, b) => (stats.unread[b] ?? 0) - (stats.unread[a] ?? 0));
  const ordinary = AGENTS.filter((a) => !backlogs.has(a) && a !== 'kepler' && a !== 'helios');
  return { poller: byUnread(ordinary)[0]!, backlog: byUnread([...backlogs])[0]!, reader: 'kepler' };
}

function cycle<T>(items: readonly T[]): () => T {
  let i = 0;
  return () => items[i++ % items.length]!;
}

/**
 * Time each operation on the built brain, in an order that keeps them honest: reads before the
 * writes that would change what they read; sends last.
 */
export async function measureOps(input: OpsInput): Promise<Record<string, OpFigures>> {
  const { brain, stats, timeMs } = input;
  const agents = chooseAgents(stats);
  const ops: Record<string, OpFigures> = {};
  const run = async (
    name: string,
    fn: () => unknown,
    options: { minIterations?: number; beforeEach?: () => void; timeMs?: number } = {},
  ) => {
    input.onOp?.(name);
    ops[name] = await measure(fn, { timeMs, ...options });
  };

  await run('poll', () => brain.messages.poll(agents.poller));
  await run('poll_backlog', () => brain.messages.poll(agents.backlog));

  const thread = stats.long_thread;
  await run('thread_history', () => brain.messages.thread({ thread_id: thread.id, limit: 50 }));
  const lastPage = Math.max(0, thread.messages - 50);
  await run('thread_history_last', () =>
    brain.messages.thread({ thread_id: thread.id, limit: 50, offset: lastPage }),
  );

  // A new connection's first search of each query: its words counted and their classes read
  // (what a new process pays before startup). Then the same queries on the warm connection, as
  // a server that has answered them answers them again.
  input.onOp?.('search_fts_first');
  ops.search_fts_first = figuresOf(
    input.queries.map((query) => {
      const t0 = performance.now();
      brain.search.search({ query });
      return performance.now() - t0;
    }),
  );
  const nextQuery = cycle(input.queries);
  await run('search_fts', () => brain.search.search({ query: nextQuery() }), {
    minIterations: input.queries.length * 4,
  });
  if (input.embedder) {
    const embedder = input.embedder;
    const vectorQuery = cycle(input.queries);
    await run(
      'search_vector',
      () => brain.search.searchHybrid({ query: vectorQuery() }, { embedder, mode: 'vector' }),
      { minIterations: input.queries.length * 2 },
    );
    const hybridQuery = cycle(input.queries);
    await run(
      'search_hybrid',
      () => brain.search.searchHybrid({ query: hybridQuery() }, { embedder, mode: 'hybrid' }),
      { minIterations: input.queries.length * 2 },
    );
  }

  const nextKnowledge = cycle(stats.knowledge_sample);
  await run('find_provenance', () => brain.knowledge.provenance({ id: nextKnowledge() }));

  // read_unread: the reader's inbox is emptied; before each read, ten fresh messages arrive
  // (untimed, through the real send); the read returns and marks exactly those ten.
  while (brain.messages.read({ agent: agents.reader, limit: 1000 }).length > 0);
  const bodies = Array.from({ length: 64 }, () => input.text.body());
  const nextBody = cycle(bodies);
  const inbox = brain.messages.send({
    from: 'helios',
    to: agents.reader,
    subject: 'bench inbox',
    body: nextBody(),
  });
  brain.messages.read({ agent: agents.reader });
  await run(
    'read_unread',
    () => {
      const got = brain.messages.read({ agent: agents.reader, limit: 50 });
      if (got.length !== 10) throw new Error(`read_unread read ${got.length} messages, not 10`);
    },
    {
      // The budget counts only timed reads; the ten untimed sends before each cost ~10× more.
      timeMs: Math.max(10, timeMs / 10),
      minIterations: 100,
      beforeEach: () => {
        for (let i = 0; i < 10; i++)
          brain.messages.send({
            from: 'helios',
            to: agents.reader,
            thread: inbox.thread_id,
            body: nextBody(),
          });
      },
    },
  );

  // send: a reply in an existing thread between two agents, durable (its own transaction).
  const sendThread = brain.messages.send({
    from: 'helios',
    to: 'nova',
    subject: 'bench sends',
    body: nextBody(),
  });
  await run('send', () =>
    brain.messages.send({
      from: 'helios',
      to: 'nova',
      thread: sendThread.thread_id,
      body: nextBody(),
    }),
  );
  // The same with BRAIN_DURABILITY=full: each commit synced to disk, as the JSON file is.
  const full = await openBrain({ dbPath: brain.path, durability: 'full' });
  try {
    await run('send_full', () =>
      full.messages.send({
        from: 'helios',
        to: 'nova',
        thread: sendThread.thread_id,
        body: nextBody(),
      }),
    );
  } finally {
    full.close();
  }
  return ops;
}
