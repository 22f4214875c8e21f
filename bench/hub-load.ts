/**
 * The hub under load: `brain serve` (the built bin, its own process) and N agents, each a real
 * MCP SDK client over streamable HTTP with its own token, all as async clients in this one
 * process (they share the cores with the server: the figures are conservative).
 * Usage: npm run build && npx tsx bench/hub-load.ts [--agents 10,50,100] [--seconds 20]
 *   [--mix send=30,poll=30,read=15,search=15,thread=5,remember=5] [--think-ms 100]
 * Exits 1 when a call failed or an acknowledged send is missing or stored twice.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_MIX, OPS, runHubLoad, type HubLoadReport, type Mix, type Op } from './hub-run.js';

const { values } = parseArgs({
  options: {
    agents: { type: 'string', default: '10,50,100' },
    seconds: { type: 'string', default: '20' },
    mix: { type: 'string' },
    'think-ms': { type: 'string', default: '100' },
  },
});

const mix: Mix = { ...DEFAULT_MIX };
for (const part of values.mix?.split(',') ?? []) {
  const [op, weight] = part.split('=');
  if (!OPS.includes(op as Op) || !(Number(weight) >= 0))
    throw new Error(`--mix: "${part}" is not op=weight with op one of ${OPS.join(', ')}`);
  mix[op as Op] = Number(weight);
}
const sizes = values.agents.split(',').map(Number);
const seconds = Number(values.seconds);
const thinkMs = Number(values['think-ms']);

const reports: HubLoadReport[] = [];
for (const agents of sizes) {
  const dir = mkdtempSync(join(tmpdir(), 'brain-hub-'));
  try {
    process.stderr.write(`${agents} agents, ${seconds} s…\n`);
    reports.push(
      await runHubLoad({
        dir,
        agents,
        seconds,
        mix,
        thinkMs,
        onProgress: (l) => process.stderr.write(`  ${l}\n`),
      }),
    );
    process.stderr.write(
      `  load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const ms = (x: number) => x.toFixed(x < 10 ? 2 : 1);
console.log(
  `hub load: ${seconds} s per size, think ${thinkMs} ms mean, mix ${OPS.map((o) => `${o}=${mix[o]}`).join(',')}`,
);
console.log(
  `load average after: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
const header = ['agents', 'op', 'ops/s', 'p50 ms', 'p99 ms'];
const rows: string[][] = [];
for (const r of reports) {
  const s = r.elapsedMs / 1000;
  for (const op of OPS) {
    const o = r.ops[op];
    rows.push([String(r.agents), op, (o.count / s).toFixed(1), ms(o.p50), ms(o.p99)]);
  }
  rows.push([String(r.agents), 'total', (r.total / s).toFixed(1), '', '']);
  rows.push([
    String(r.agents),
    'notify',
    String(r.notify.count),
    ms(r.notify.p50),
    ms(r.notify.p99),
  ]);
}
const width = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (cells: string[]) => cells.map((c, i) => c.padStart(width[i]!)).join('  ');
console.log(line(header));
for (const r of rows) console.log(line(r));
console.log();
for (const r of reports)
  console.log(
    `${r.agents} agents: errors ${r.errors}, sends acknowledged ${r.acked}, missing ${r.missing}, doubled ${r.doubled}, ` +
      `notifications missed ${r.notify.missed} (beat their ack: ${r.notify.early}), ` +
      `server RSS ${(r.rssKb / 1024).toFixed(1)} MB (peak ${(r.peakRssKb / 1024).toFixed(1)}), ` +
      `server CPU ${((100 * r.serverCpuS) / (r.elapsedMs / 1000)).toFixed(0)} % of a core` +
      (r.errorSamples.length ? `\n  ${r.errorSamples.join('\n  ')}` : ''),
  );
const failed = reports.some((r) => r.errors > 0 || r.missing > 0 || r.doubled > 0);
process.exit(failed ? 1 : 0);
