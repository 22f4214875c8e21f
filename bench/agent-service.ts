/**
 * `brain agent` start-up and idle memory: the built CLI started with a model that is never
 * called and no channels (only the inbox watcher); the time from spawn to its `ready` log line,
 * and its resident memory (VmRSS) after 10 s idle. Runs RUNS times (default 5); prints each run
 * and the medians.
 *
 *   npm run build && nice npx tsx bench/agent-service.ts
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startFakeTelegram } from '../test/fakes/telegram.js';

const CLI = resolve(import.meta.dirname, '..', 'dist', 'bin', 'main.js');
const RUNS = Number(process.env.RUNS ?? 5);
const IDLE_MS = Number(process.env.IDLE_MS ?? 10_000);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The process's user + system CPU time so far (clock ticks of 10 ms on Linux). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function rssKb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
}

interface Run {
  readyMs: number;
  /** CPU time spent up to ready: what wall time would be on an idle machine, roughly. */
  readyCpuMs: number;
  rssMb: number;
  exitMs: number;
}

/**
 * `--telegram`: with the Telegram channel polling a loopback fake Bot API, so `ready` includes
 * getMe, deleteWebhook and the first long poll.
 */
const TELEGRAM = process.argv.includes('--telegram');

async function once(): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'brain-bench-agent-'));
  const telegram = TELEGRAM ? await startFakeTelegram() : undefined;
  try {
    const config = join(dir, 'assistant.json');
    writeFileSync(
      config,
      JSON.stringify({
        agent: 'assistant',
        owner: 'bench',
        workspace: dir,
        models: {
          endpoints: [{ provider: 'ollama', model: 'none', baseUrl: 'http://127.0.0.1:9' }],
        },
        ...(telegram ? { telegram: { allowedChatIds: [1], apiRoot: telegram.apiRoot } } : {}),
      }),
    );
    const started = performance.now();
    const child = spawn(process.execPath, [CLI, 'agent', '--config', config], {
      env: {
        ...process.env,
        BRAIN_DB: join(dir, 'brain.db'),
        BRAIN_EMBEDDER: 'none',
        XDG_CONFIG_HOME: dir,
        ...(telegram ? { TELEGRAM_BOT_TOKEN: telegram.token } : {}),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const exited = new Promise<void>((r) => child.on('close', () => r()));
    let err = '';
    let readyCpuMs = NaN;
    const readyMs = await new Promise<number>((resolveReady, reject) => {
      child.stderr.on('data', (d: Buffer) => {
        err += d.toString();
        if (/^brain: info ready /m.test(err)) {
          readyCpuMs = cpuMs(child.pid!);
          resolveReady(performance.now() - started);
        }
      });
      void exited.then(() => reject(new Error(`exited before ready:\n${err}`)));
    });
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const rssMb = rssKb(child.pid!) / 1024;
    const stopAt = performance.now();
    child.kill('SIGTERM');
    await exited;
    return { readyMs, readyCpuMs, rssMb, exitMs: performance.now() - stopAt };
  } finally {
    await telegram?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const runs: Run[] = [];
console.log(TELEGRAM ? 'with the Telegram channel (fake Bot API on loopback)' : 'no channels');
console.log(
  `load average before: ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
for (let i = 0; i < RUNS; i++) {
  const r = await once();
  runs.push(r);
  console.log(
    `run ${i + 1}: ready ${r.readyMs.toFixed(0)} ms (CPU ${r.readyCpuMs} ms), idle RSS ${r.rssMb.toFixed(1)} MB, SIGTERM→exit ${r.exitMs.toFixed(0)} ms`,
  );
}
console.log(
  `median of ${RUNS}: ready ${median(runs.map((r) => r.readyMs)).toFixed(0)} ms (CPU ${median(runs.map((r) => r.readyCpuMs))} ms), idle RSS ${median(runs.map((r) => r.rssMb)).toFixed(1)} MB, SIGTERM→exit ${median(runs.map((r) => r.exitMs)).toFixed(0)} ms`,
);
console.log(
  `load average after: ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
