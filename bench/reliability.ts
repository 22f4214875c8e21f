/**
 * Full-size reliability runs (the test suite runs smaller ones):
 *   npm run build && npm run reliability     (both below at their defaults; .ci/run runs it)
 *   npx tsx bench/reliability.ts stress [--writers 4] [--readers 4] [--messages 2500] [--via library|cli|mcp]
 *   npx tsx bench/reliability.ts crash [--kills 20] [--seed 1]
 *   npx tsx bench/reliability.ts restore [--seconds 20] [--sync-interval 1s]
 * Prints figures; exits 1 when a guarantee did not hold.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runCrashes } from './crash.js';
import { drillProblems, runRestoreDrill } from './restore-drill.js';
import { runStress, type Via } from './stress.js';

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      writers: { type: 'string', default: '4' },
      readers: { type: 'string', default: '4' },
      messages: { type: 'string', default: '2500' },
      via: { type: 'string', default: 'library' },
      kills: { type: 'string', default: '20' },
      seed: { type: 'string', default: String(Date.now() % 100_000) },
      keep: { type: 'boolean', default: false },
      seconds: { type: 'string', default: '20' },
      'sync-interval': { type: 'string', default: '1s' },
    },
  });
  const runs = positionals.length > 0 ? positionals : ['stress', 'crash', 'restore'];
  let failed = 0;
  for (const run of runs) {
    const code = await runOne(run, values);
    if (code === 2) return 2;
    if (code !== 0) failed += 1;
  }
  return failed > 0 ? 1 : 0;
}

type Values = {
  writers: string;
  readers: string;
  messages: string;
  via: string;
  kills: string;
  seed: string;
  keep: boolean;
  seconds: string;
  'sync-interval': string;
};

async function runOne(run: string, values: Values): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'brain-reliability-'));
  const progress = (line: string) => process.stderr.write(`  ${line}\n`);
  try {
    let problems: string[];
    if (run === 'crash') {
      const r = await runCrashes({
        dir,
        kills: Number(values.kills),
        seed: Number(values.seed),
        onProgress: progress,
      });
      console.log(
        `crash: ${r.kills} SIGKILLs (seed ${values.seed}), ${r.returned} returned writes checked after each, ${r.earlyKills} kills before the first send returned`,
      );
      problems = r.problems;
    } else if (run === 'stress') {
      const via = values.via as Via;
      const r = await runStress({
        dir,
        writers: Number(values.writers),
        readers: Number(values.readers),
        perWriter: Number(values.messages),
        via,
        onProgress: progress,
      });
      const perSecond = Math.round((r.sent / r.elapsedMs) * 1000);
      console.log(
        `stress via ${via}: ${values.writers} writers × ${values.messages} sends, ${values.readers} readers: ${r.sent} sent, ${r.reads} reads in ${(r.elapsedMs / 1000).toFixed(1)} s (${perSecond} sends/s), WAL at most ${(r.maxWalBytes / 1048576).toFixed(1)} MiB`,
      );
      problems = r.problems;
    } else if (run === 'restore') {
      const syncInterval = values['sync-interval'];
      const syncMs = /^(\d+)(ms|s)$/.exec(syncInterval);
      if (!syncMs) {
        console.error('--sync-interval: a whole number of ms or s, such as 250ms or 1s');
        return 2;
      }
      const intervalMs = Number(syncMs[1]) * (syncMs[2] === 's' ? 1000 : 1);
      const r = await runRestoreDrill({
        dir,
        syncInterval,
        runMs: Number(values.seconds) * 1000,
        mcpWriters: 3,
        cliWriters: 1,
        pauseMs: 20,
      });
      const lost = r.writes.filter((w) => !r.latest.bodies.has(w.body)).length;
      // The bound: the sync interval, Litestream's look at the WAL, and a second for a busy machine.
      const boundMs = 2 * intervalMs + 1000;
      console.log(
        `restore drill at sync interval ${syncInterval}: ${r.writes.length} writes acknowledged in ${values.seconds} s, ${lost} lost with the machine, RPO ${r.rpoMs} ms (bound ${boundMs} ms); point-in-time restore held ${r.past.bodies.size - 1} writes`,
      );
      problems = drillProblems(r, boundMs);
    } else {
      console.error('usage: reliability.js [stress|crash|restore …] [options]');
      return 2;
    }
    for (const p of problems) console.log(`PROBLEM ${p}`);
    console.log(problems.length ? `${problems.length} problem(s)` : 'every guarantee held');
    return problems.length ? 1 : 0;
  } finally {
    if (values.keep) console.log(`kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
