/**
 * What judging a command costs: the first judgement (which loads the bash grammar's WASM) and
 * then the median and p90 of judging a few typical lines, each `--runs` times. Lines that name
 * files pay for resolving them (realpath of each path, git's repository found from the cwd).
 *
 * Usage: npx tsx bench/shell-judge.ts [--runs N]
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { judgeCommand } from '../agent/permissions/shell.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '2000' } } });
const runs = Number(values.runs);

const LINES = [
  'ls -la',
  'cat README.md | head -20 && git log --oneline -5',
  "grep -rn TODO agent src && sed -n '1,20p' package.json | head -5",
  'find . -name "*.ts" -exec grep -n TODO {} +; echo "a && b" $(id)',
  "sed -l 1p '1e touch X' README.md",
];

const PLACE = { cwd: process.cwd(), roots: [process.cwd()] };
const start = performance.now();
await judgeCommand('ls', PLACE);
console.log(`first judgement (grammar load): ${(performance.now() - start).toFixed(0)} ms`);

for (const line of LINES) {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await judgeCommand(line, PLACE);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => ((times[Math.floor(q * (runs - 1))] ?? 0) * 1000).toFixed(0);
  console.log(`${JSON.stringify(line)}: median ${at(0.5)} µs, p90 ${at(0.9)} µs`);
}
