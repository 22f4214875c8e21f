// Whether search's pruned ranking (src/search/bm25-top-k.ts) and its ranking from posting lists
// in memory (src/search/postings.ts) give the top 10 that exhaustive BM25 gives, and how fast it
// searches: on a built brain, for the 50 queries of `brain bench` and, when a LoCoMo file is
// given, its questions (categories 1–4).
//
// For each query, the message index's top 10 of the rows holding any of its words four ways:
// pruned (what a one-off search runs), from the lists (what a warm process runs), brain_bm25 over
// every match (exhaustive, same function) and FTS5's bm25() over every match (a second opinion:
// float rounding may order exact ties apart). Then search itself (`brain.search`, words only, on
// a connection that ranks from the lists) beside search through bm25(), which scores every
// match. Latency: every query searched `rounds` times on one long-lived connection after one
// warm-up round (its words counted and kept, as in `brain mcp`); p50 and p99 of all searches,
// and the cold first round apart.
//
//   npm run build
//   nice npx tsx bench/exact-top-k.ts DB [LOCOMO_FILE] [rounds]
//
// The database is opened read-write only to migrate it (use a copy of a `brain bench --keep` brain).
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { loadavg } from 'node:os';
import { openBrain, type Brain } from '../src/index.js';
import { buildFtsQueries } from '../src/search/fts-query.js';
import { connectionOf } from '../src/brain.js';
import { StatementCache } from '../src/db/open.js';
import { createRankCaches } from '../src/search/rank-caches.js';
import { readLocomo } from '../src/eval/locomo-format.js';
import { pruneTopK, type Ranked } from '../src/search/bm25-top-k.js';
import { keepPostings, postingsTopK } from '../src/search/postings.js';
import { createWordCounter } from '../src/search/word-counts.js';
import { quoteTerm } from '../src/search/fts-query.js';
import { indexWeights, RANK_SQL } from '../src/search/rank.js';
import { benchText } from '../cli/bench/corpus.js';
import { benchQueries } from '../cli/bench/queries.js';

const [dbArg, locomoArg, roundsArg] = process.argv.slice(2);
if (!dbArg) {
  console.error('usage: npx tsx bench/exact-top-k.ts DB [LOCOMO_FILE|-] [rounds]');
  process.exit(2);
}
const rounds = Number(roundsArg ?? 5);
const sets: Array<[string, string[]]> = [['bench', benchQueries(await benchText(undefined, 1))]];
if (locomoArg && locomoArg !== '-') {
  const convs = readLocomo(JSON.parse(readFileSync(locomoArg, 'utf8')));
  const qs = convs.flatMap((c) =>
    c.questions.filter((q) => q.category >= 1 && q.category <= 4).map((q) => q.question),
  );
  sets.push(['locomo', qs]);
}

const brain = await openBrain({ dbPath: dbArg });
const fts5 = await openBrain({ dbPath: dbArg, rankFunction: false });
const db = connectionOf(brain);
// Ranks from the lists, as a warm process does (reading each list the first time).
const ctx = { db, q: new StatementCache(db), ranking: createRankCaches() };
keepPostings(ctx);
const rank = db.prepare(RANK_SQL.brain_bm25.message.bare);
const rankFts5 = db.prepare(RANK_SQL.bm25.message.bare);
const ids = (rows: Ranked[]) => rows.map((r) => r.rowid).join();
const K = 10;

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
}

for (const [name, queries] of sets) {
  let prunedSame = 0;
  let listsSame = 0;
  let fts5Same = 0;
  let searchSame = 0;
  let n = 0;
  const differ: string[] = [];
  for (const query of queries) {
    const terms = buildFtsQueries(query)?.terms;
    if (!terms) continue;
    n++;
    const counter = createWordCounter(ctx, 'message');
    const dfs = terms.map((t) => counter.count(t));
    const df = Buffer.from(Float64Array.from(dfs).buffer);
    const run = (match: string) => rank.all({ match, k: K, df }) as Ranked[];
    const any = terms.map(quoteTerm).join(' OR ');
    const exhaustive = ids(run(any));
    const pruned = ids(pruneTopK(terms, dfs, counter.rows(), K, run).ranked);
    if (pruned === exhaustive) prunedSame++;
    else differ.push(`pruned ≠ exhaustive: "${query}"`);
    const fromLists = postingsTopK(ctx, {
      table: 'messages_fts',
      weights: indexWeights('message'),
      terms,
      counts: () => dfs,
      k: 0,
      wide: K,
      epoch: counter.epoch(),
    });
    if (fromLists && ids(fromLists.any) === exhaustive) listsSame++;
    else differ.push(`from the lists ≠ exhaustive: "${query}"`);
    if (ids(rankFts5.all({ match: any, k: K, df: Buffer.alloc(0) }) as Ranked[]) === exhaustive)
      fts5Same++;
    else differ.push(`bm25() ≠ brain_bm25: "${query}"`);
    const hits = (b: Brain) =>
      b.search
        .search({ query, types: ['message'], limit: K })
        .hits.map((h) => h.id)
        .join();
    if (hits(brain) === hits(fts5)) searchSame++;
    else differ.push(`search ≠ search through bm25(): "${query}"`);
  }
  console.log(
    `${name}: ${n} queries, top ${K} of any word: pruned = exhaustive brain_bm25 for ${prunedSame}; ` +
      `from the lists = exhaustive for ${listsSame}; ` +
      `exhaustive brain_bm25 = bm25() for ${fts5Same}; search = search through bm25() for ${searchSame}`,
  );
  for (const line of differ.slice(0, 20)) console.log(`  ${line}`);

  // Latency: a fresh connection, a cold round, then `rounds` warm rounds; then the same on a
  // connection warmed as brain chat's is (warmSearch: the commonest words' lists read).
  for (const warmed of [false, true]) await latency(name, queries, warmed);
}
brain.close();
fts5.close();

async function latency(name: string, queries: string[], warmed: boolean): Promise<void> {
  const timed = await openBrain({ dbPath: dbArg! });
  if (warmed) timed.search.warmSearch();
  // Wall time, and this process's CPU time: on a loaded machine the second says more.
  const cpu: number[] = [];
  const time = (query: string) => {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    timed.search.search({ query, types: ['message'] });
    const wall = performance.now() - t0;
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
    return wall;
  };
  const cold = queries.map(time);
  cpu.length = 0;
  const warm: number[] = [];
  for (let r = 0; r < rounds; r++) for (const q of queries) warm.push(time(q));
  const f = (x: number) => x.toFixed(1);
  console.log(
    `${name}${warmed ? ' (warmSearch first)' : ''}: search (messages, words only) warm p50 ${f(pct(warm, 50))} ms, p99 ${f(pct(warm, 99))} ms ` +
      `(${warm.length} searches; CPU p50 ${f(pct(cpu, 50))} ms, p99 ${f(pct(cpu, 99))} ms); cold first round p50 ${f(pct(cold, 50))} ms, p99 ${f(pct(cold, 99))} ms; ` +
      `load ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
  );
  timed.close();
}
