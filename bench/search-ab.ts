// Search latency of two builds of brain, side by side on one database: the 50 queries of
// `brain bench`, each run by A then B (or B then A, alternately) for several rounds, so that a
// machine whose speed drifts (shared hosts do) slows both alike. Prints p50, p99 and the mean.
//
//   npm run build
//   npx tsx bench/search-ab.ts DB A_DIST B_DIST [rounds] [--cold] [--corpus FILE]
//
// A_DIST and B_DIST are `dist` folders of two checkouts (each a full checkout, so each finds its
// own migrations and ranking extension). The database is opened read-write by both and only
// read. `--cold` opens a new connection for every search instead (a one-off `brain search`:
// nothing kept between searches).
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchText } from '../cli/bench/corpus.js';
import { benchQueries } from '../cli/bench/queries.js';
import type { Brain } from '../src/index.js';

const argv = process.argv.slice(2);
const cold = argv.includes('--cold');
// --corpus FILE: the LoCoMo file the database was built from (default: the generated chat).
const corpusAt = argv.indexOf('--corpus');
const corpusFile = corpusAt >= 0 ? argv[corpusAt + 1] : undefined;
const args = argv.filter((a, i) => a !== '--cold' && i !== corpusAt && i !== corpusAt + 1);
const [dbArg, distA, distB, roundsArg] = args;
if (!dbArg || !distA || !distB || !existsSync(dbArg)) {
  console.error('usage: npx tsx bench/search-ab.ts DB A_DIST B_DIST [rounds] [--cold]');
  process.exit(2);
}
const db: string = dbArg;
const rounds = Number(roundsArg ?? 6);

// An older build opens synchronously, a newer one asynchronously: either is awaited.
type Open = (path: string) => Promise<Brain>;
async function opener(dist: string): Promise<Open> {
  const lib = (await import(pathToFileURL(resolve(dist, 'src/index.js')).href)) as {
    openBrain: (o: { dbPath: string }) => Brain | Promise<Brain>;
  };
  return async (path) => lib.openBrain({ dbPath: path });
}

const queries = benchQueries(await benchText(corpusFile, 1));
const sides = [
  { name: 'A', open: await opener(distA), samples: [] as number[] },
  { name: 'B', open: await opener(distB), samples: [] as number[] },
];
const warm = await Promise.all(sides.map((s) => s.open(db)));

async function time(side: number, query: string): Promise<number> {
  const brain = cold ? await sides[side]!.open(db) : warm[side]!;
  const start = process.hrtime.bigint();
  brain.search.search({ query });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (cold) brain.close();
  return ms;
}

for (const query of queries) for (const side of [0, 1]) await time(side, query); // warm both
for (let round = 0; round < rounds; round += 1) {
  for (const query of queries) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    for (const side of order) sides[side]!.samples.push(await time(side, query));
  }
}

const at = (sorted: number[], p: number) => sorted[Math.floor((sorted.length - 1) * p)]!;
for (const side of sides) {
  const sorted = [...side.samples].sort((a, b) => a - b);
  const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
  console.log(
    `${side.name}: p50 ${at(sorted, 0.5).toFixed(2)} ms, p99 ${at(sorted, 0.99).toFixed(2)} ms, ` +
      `mean ${mean.toFixed(2)} ms over ${sorted.length} searches${cold ? ' (cold)' : ''}`,
  );
}
for (const w of warm) w.close();
