// Speed of vector and hybrid search at 100,000 messages with 768-dimension vectors, and the
// queue's cost per item. Run: npx tsx bench/vector-search.ts [messages]   (prints figures;
// copy them to bench/RESULTS.md under "Vector search").
// Vectors are random unit vectors (the speed of the index does not depend on what they mean);
// query vectors are computed before timing, so figures leave out the time to embed the query.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openBrain, type Embedder } from '../src/index.js';
import { RANK_PREFERENCES } from '../src/search/search.js';

const MESSAGES = Number(process.argv[2] ?? 100_000);
const DIM = 768;
const QUERIES = 60;

/** Deterministic pseudo-random numbers, so runs compare. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return s / 2 ** 32;
  };
}
const rand = rng(42);

function randomUnit(): Float32Array {
  const v = new Float32Array(DIM);
  let n = 0;
  for (let i = 0; i < DIM; i++) {
    v[i] = rand() * 2 - 1;
    n += v[i]! * v[i]!;
  }
  const s = 1 / Math.sqrt(n);
  for (let i = 0; i < DIM; i++) v[i]! *= s;
  return v;
}

// Words with a Zipf-like spread, so FTS meets both rare and common terms.
const VOCAB = Array.from({ length: 5000 }, (_, i) => `w${i.toString(36)}`);
function sentence(): string {
  const n = 8 + Math.floor(rand() * 20);
  return Array.from({ length: n }, () => VOCAB[Math.floor(VOCAB.length * rand() ** 2.5)]!).join(
    ' ',
  );
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}
const ms = (x: number) => `${x.toFixed(2)} ms`;

const dir = mkdtempSync(join(tmpdir(), 'brain-bench-'));
// A second argument (a path) keeps the built database there (to profile without rebuilding).
const keep = process.argv[3];
const brain = await openBrain({ dbPath: keep ?? join(dir, 'bench.db') });
try {
  const agents = ['helios', 'nova', 'atlas', 'vega', 'orion'];
  let t0 = performance.now();
  let thread: string | undefined;
  // A kept database that is already built is reused as it is.
  const have = brain.search.recent({ limit: 1 }).length;
  for (let i = have > 0 ? MESSAGES : 0; i < MESSAGES; i++) {
    if (i % 50 === 0) thread = undefined;
    const sent = brain.messages.send({
      from: agents[i % agents.length]!,
      to: agents[(i + 1) % agents.length]!,
      body: sentence(),
      ...(thread ? { thread } : { subject: sentence().slice(0, 40) }),
      at: new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString(),
    });
    thread = sent.thread_id;
  }
  console.error(`loaded ${MESSAGES} messages in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  // Queue overhead: drain with an embedder that costs (almost) nothing; time outside it is ours.
  let modelMs = 0;
  const fast: Embedder = {
    provider: 'offline',
    model: 'bench-random-768',
    batchSize: 64,
    embed(texts) {
      const s = performance.now();
      const out = texts.map(() => randomUnit());
      modelMs += performance.now() - s;
      return Promise.resolve(out);
    },
  };
  t0 = performance.now();
  const drained = await brain.embed.embedQueued(fast);
  const drainMs = performance.now() - t0;
  const perItem = drained.embedded > 0 ? (drainMs - modelMs) / drained.embedded : NaN;
  console.error(`embedded ${drained.embedded} in ${(drainMs / 1000).toFixed(1)} s`);

  // Queries: vectors made up front; the embedder hands them over instantly.
  const queryVectors = Array.from({ length: QUERIES }, () => randomUnit());
  const queryWords = Array.from({ length: QUERIES }, () =>
    sentence().split(' ').slice(0, 3).join(' '),
  );
  let next = 0;
  const instant: Embedder = { ...fast, embed: () => Promise.resolve([queryVectors[next]!]) };
  const threadIds = brain.messages.threads({ limit: 200 }).map((t) => t.id);
  const inFebruary = (i: number) =>
    brain.search.searchHybrid(
      { query: `${queryWords[i]!} in February 2025`, types: ['message'], limit: 10 },
      { embedder: instant, timeWords: { timeZone: 'UTC', now: new Date(Date.UTC(2025, 5, 1)) } },
    );

  // Wall time, and this process's CPU time: on a shared machine the second shows what a query
  // costs on an idle core.
  async function time(name: string, run: (i: number) => Promise<unknown>) {
    const xs: number[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < QUERIES; i++) {
      next = i;
      const c = process.cpuUsage();
      const s = performance.now();
      await run(i);
      xs.push(performance.now() - s);
      const d = process.cpuUsage(c);
      cpu.push((d.user + d.system) / 1000);
    }
    return { name, p50: percentile(xs, 50), p95: percentile(xs, 95), cpu50: percentile(cpu, 50) };
  }
  const rows = [
    await time('vector kNN, limit 10', (i) =>
      brain.search.searchHybrid(
        { query: queryWords[i]!, types: ['message'], limit: 10 },
        { embedder: instant, mode: 'vector' },
      ),
    ),
    await time('vector kNN, limit 10, filter agent', (i) =>
      brain.search.searchHybrid(
        { query: queryWords[i]!, types: ['message'], limit: 10, agent: 'vega' },
        { embedder: instant, mode: 'vector' },
      ),
    ),
    await time('vector kNN, limit 10, filter thread', (i) =>
      brain.search.searchHybrid(
        {
          query: queryWords[i]!,
          types: ['message'],
          limit: 10,
          thread: threadIds[i % threadIds.length],
        },
        { embedder: instant, mode: 'vector' },
      ),
    ),
    await time('FTS only, limit 10', (i) =>
      brain.search.searchHybrid(
        { query: queryWords[i]!, types: ['message'], limit: 10 },
        { embedder: instant, mode: 'fts' },
      ),
    ),
    await time('hybrid, limit 10', (i) =>
      brain.search.searchHybrid(
        { query: queryWords[i]!, types: ['message'], limit: 10 },
        { embedder: instant },
      ),
    ),
    await time('hybrid, all types, limit 20', (i) =>
      brain.search.searchHybrid({ query: queryWords[i]!, limit: 20 }, { embedder: instant }),
    ),
    // A time said: the words' and the vectors' lists of the period join the fusion.
    await time('hybrid, "in February 2025" said, limit 10', (i) => inFebruary(i)),
    await time('the same without the vectors’ list of the period', async (i) => {
      const kept = RANK_PREFERENCES.timeVector;
      RANK_PREFERENCES.timeVector = 0;
      try {
        return await inFebruary(i);
      } finally {
        RANK_PREFERENCES.timeVector = kept;
      }
    }),
  ];
  console.log(
    `\n${MESSAGES} messages, ${DIM}-dimension vectors (1-bit index + exact re-scoring), ${QUERIES} queries each`,
  );
  console.log(
    `load average at the end: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')} (2 cores, shared)`,
  );
  console.log('| search | p50 wall | p95 wall | p50 CPU |\n|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.name} | ${ms(r.p50)} | ${ms(r.p95)} | ${ms(r.cpu50)} |`);
  console.log(
    `\nqueue overhead: ${perItem.toFixed(3)} ms per item beyond the model (${drained.embedded} items, batches of 64)`,
  );
} finally {
  brain.close();
  rmSync(dir, { recursive: true, force: true });
}
