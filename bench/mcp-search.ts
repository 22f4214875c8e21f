/**
 * `search` through `brain mcp` over stdio, as an MCP client sees it: a brain of N generated chat
 * messages, the built server spawned, the SDK's Client connected (tools listed first, as real
 * clients do), then the bench's queries searched words only, round after round. Beside it the
 * same searches in process (`brain.searchHybrid`, no embedder), so the gap is what the transport,
 * the SDK and the tool's own work add. Both timed by `brain bench`'s loop (tinybench).
 *
 *   npm run build && npx tsx bench/mcp-search.ts [messages=5000] [rounds=20]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { openBrain } from '../src/index.js';
import { benchText } from '../cli/bench/corpus.js';
import { benchQueries } from '../cli/bench/queries.js';
import { measure, type OpFigures } from '../cli/bench/measure.js';

const CLI = resolve(import.meta.dirname, '..', 'dist', 'bin', 'main.js');
const messages = Number(process.argv[2] ?? 5_000);
const rounds = Number(process.argv[3] ?? 20);
const AGENTS = ['nova', 'orion', 'lyra', 'atlas', 'vega'];

const dir = mkdtempSync(join(tmpdir(), 'brain-mcp-search-'));
const db = join(dir, 'brain.db');
try {
  const text = await benchText(undefined, 1);
  const brain = await openBrain({ dbPath: db });
  const built = performance.now();
  brain.batch(() => {
    let thread: string | undefined;
    for (let i = 0; i < messages; i++) {
      const from = AGENTS[i % AGENTS.length]!;
      const to = AGENTS[(i + 1) % AGENTS.length]!;
      const sent = brain.messages.send({
        from,
        to,
        body: text.body(),
        ...(i % 20 === 0 ? { subject: text.subject() } : { thread }),
      });
      thread = sent.thread_id;
    }
  });
  const queries = benchQueries(text);
  console.log(
    `${messages} messages built in ${((performance.now() - built) / 1000).toFixed(1)} s; ${queries.length} queries × ${rounds} rounds; load ${loadavg()[0]!.toFixed(2)}`,
  );

  let next = 0;
  const local = await measure(
    () => brain.search.searchHybrid({ query: queries[next++ % queries.length]!, limit: 10 }),
    {
      timeMs: 0,
      minIterations: queries.length * rounds,
    },
  );
  brain.close();

  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--agent', 'bench', '--db', db],
    // The same brain as in process: no embedder, and no extraction reading the new brain's
    // messages into knowledge while it is searched (a catch-up a running server has long done).
    env: {
      ...(process.env as Record<string, string>),
      BRAIN_EMBEDDER: 'none',
      BRAIN_EXTRACT_THREADS: 'none',
    },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(transport);
  await client.listTools();
  const remote = await measure(
    async () => {
      const query = queries[next++ % queries.length]!;
      const result = await client.callTool({ name: 'search', arguments: { query, limit: 10 } });
      if (result.isError) throw new Error(`search failed: ${JSON.stringify(result.content)}`);
    },
    { timeMs: 0, minIterations: queries.length * rounds },
  );
  await client.close();

  const stat = (f: OpFigures) =>
    `p50 ${f.p50_ms.toFixed(2)} ms, p99 ${f.p99_ms.toFixed(2)} ms (${f.samples} calls)`;
  console.log(`in process (searchHybrid, words only): ${stat(local)}`);
  console.log(`over MCP stdio (callTool search):     ${stat(remote)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
