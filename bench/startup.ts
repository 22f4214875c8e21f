// One-shot commands as whole processes, as a shell user or an agent's hook runs them: node's
// start-up, loading the CLI, opening the brain, the command, closing. Each round runs every
// command once, in turn, so a machine whose load drifts slows them alike; the first round is a
// warm-up. Prints the median and 90th percentile of the wall time, and the median CPU time
// (user + system, read through /usr/bin/time when it is there), which a busy machine inflates
// less than the wall time.
//
//   npm run build
//   npx tsx bench/startup.ts DB [runs] [--cli PATH] [--base PATH]
//
// --base runs another build's CLI too (a copy of dist/ from before a change), command by command
// in the same rounds, so both see the same load: rows `name@base`. --base-db gives it a brain of
// its own (a build from before a migration cannot open a newer brain): make both with their own
// build's `brain bench --messages 100000 --keep`.
//
// `send` and `read` write: run it on a copy of a bench database (`brain bench --keep`).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import { FIXED_QUERIES } from '../cli/bench/queries.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { cli: { type: 'string' }, base: { type: 'string' }, 'base-db': { type: 'string' } },
});
const [db, runsArg] = positionals;
if (!db || !existsSync(db)) {
  console.error(
    'usage: npx tsx bench/startup.ts DB [runs] [--cli PATH] [--base PATH [--base-db DB]]',
  );
  process.exit(2);
}
const runs = Number(runsArg ?? 20);
const cli = values.cli ?? fileURLToPath(new URL('../dist/bin/main.js', import.meta.url));

/** Ids the commands need, read from the database itself. */
function sample(path: string) {
  const conn = new BetterSqlite3(path, { readonly: true });
  try {
    const one = <T>(sql: string) => conn.prepare(sql).pluck().get() as T;
    const knowledge = one<string>(
      `SELECT uid FROM stm WHERE source_message_id IS NOT NULL ORDER BY id LIMIT 1 OFFSET 100`,
    );
    const threadHex = one<string>(
      `SELECT hex(uid) FROM threads ORDER BY message_count DESC LIMIT 1`,
    ).toLowerCase();
    const thread = `thr_${threadHex.replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5')}`;
    return { knowledge, thread };
  } finally {
    conn.close();
  }
}

const baseDb = values['base-db'] ?? db;

/** The commands, with the ids they need from `path`; a search asks each round another query. */
function commands(path: string): Record<string, string[] | ((round: number) => string[])> {
  const { knowledge, thread } = sample(path);
  return {
    // The floor: node itself starting and stopping, on the same run and load.
    'node -e 0': [],
    poll: ['poll', '--agent', 'nova'],
    // `brain bench`'s queries, in turn: common words, names, topics, rare words, questions.
    search: (round) => ['search', FIXED_QUERIES[round % FIXED_QUERIES.length]!],
    provenance: ['provenance', knowledge],
    thread: ['thread', thread, '--limit', '20'],
    send: ['send', '--agent', 'nova', '--to', 'atlas', '--body', 'startup probe'],
    read: ['read', '--agent', 'atlas', '--limit', '5'],
  };
}
const COMMANDS = commands(db);
const BASE_COMMANDS = values.base ? commands(baseDb) : {};

const timer = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

/** Wall and CPU milliseconds of one run (CPU is NaN without /usr/bin/time). */
function once(args: string[], main = cli, path = db!): { wall: number; cpu: number } {
  const argv =
    args.length === 0
      ? [process.execPath, '-e', '0']
      : [process.execPath, main, '--db', path, '--json', ...args];
  const [command, ...rest] = timer ? [timer, '-f', 'cpu %U %S', ...argv] : argv;
  const start = performance.now();
  const child = spawnSync(command!, rest, {
    env: { ...process.env, BRAIN_EMBEDDER: 'none', BRAIN_EXTRACT_THREADS: 'none', NO_COLOR: '1' },
    encoding: 'utf8',
  });
  const wall = performance.now() - start;
  if (child.status !== 0) {
    throw new Error(`brain ${args.join(' ')} exited with ${child.status}: ${child.stderr.trim()}`);
  }
  const times = /cpu ([\d.]+) ([\d.]+)\s*$/.exec(child.stderr);
  const cpu = times ? (Number(times[1]) + Number(times[2])) * 1000 : NaN;
  return { wall, cpu };
}

type Args = string[] | ((round: number) => string[]);
const runsOf: [string, Args, string, string][] = [];
for (const [name, args] of Object.entries(COMMANDS)) {
  runsOf.push([name, args, cli, db]);
  if (values.base && name !== 'node -e 0')
    runsOf.push([`${name}@base`, BASE_COMMANDS[name]!, values.base, baseDb]);
}
const samples = Object.fromEntries(
  runsOf.map(([name]) => [name, { wall: [] as number[], cpu: [] as number[] }]),
);
for (let round = 0; round <= runs; round += 1) {
  for (const [name, args, main, path] of runsOf) {
    const { wall, cpu } = once(typeof args === 'function' ? args(round) : args, main, path);
    if (round === 0) continue;
    samples[name]!.wall.push(wall);
    samples[name]!.cpu.push(cpu);
  }
}

const at = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) * p)]!;
};
const ms = (x: number) => (Number.isNaN(x) ? '—' : x.toFixed(0)).padStart(8);
console.log(
  `${runs} runs each, ${db}; ${cli}; load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')} at the end`,
);
// The goals are stated over node's own start (`brain bench`'s: poll ≤ node + 40, others + 80).
const node = at(samples['node -e 0']!.wall, 0.5);
console.log('command            wall p50  wall p90   cpu p50  p50 - node   (ms)');
for (const [name, { wall, cpu }] of Object.entries(samples)) {
  const p50 = at(wall, 0.5);
  console.log(
    `${name.padEnd(17)} ${ms(p50)}  ${ms(at(wall, 0.9))}  ${ms(at(cpu, 0.5))}  ${ms(p50 - node)}`,
  );
}
