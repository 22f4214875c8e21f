import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { packageRoot } from '../src/db/package-root.js';

/** The worker's source: bench/ is development code, never compiled into the package. */
export const WORKER_SOURCE = join(packageRoot(), 'bench', 'stress-worker.ts');

let bundled: string | undefined;

/**
 * The worker as one JavaScript file, bundled once per process with esbuild (its packages left
 * to node_modules): a worker then starts as a plain Node process, without a TypeScript loader's
 * start-up on every spawn (the crash runs spawn dozens).
 */
export function workerScript(): string {
  if (bundled) return bundled;
  const dir = join(packageRoot(), 'node_modules', '.cache', 'brain-bench');
  mkdirSync(dir, { recursive: true });
  const out = join(dir, 'stress-worker.mjs');
  const partial = `${out}.${process.pid}.tmp`;
  buildSync({
    entryPoints: [WORKER_SOURCE],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outfile: partial,
    logLevel: 'error',
  });
  // Whole or not at all: test files build it side by side.
  renameSync(partial, out);
  bundled = out;
  return out;
}

export interface Worker {
  child: ChildProcess;
  /** Complete stdout lines so far (a line cut by a kill is not one). */
  lines: string[];
  stderr(): string;
  /** Resolves with the exit code, or the signal's name when killed. */
  exited: Promise<number | string>;
  /** Resolves at the first stdout line (so far or to come) that starts with `prefix`. */
  line(prefix: string): Promise<string>;
}

/** Start one worker process: bench/stress-worker.ts, bundled, with `ROLE ARGS…`. */
export function spawnWorker(args: string[]): Worker {
  const child = spawn(process.execPath, [workerScript(), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const waiting = new Set<() => void>();
  let partial = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop()!;
    lines.push(...parts);
    for (const check of waiting) check();
  });
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | string>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve(signal ?? code ?? -1));
  });
  const line = (prefix: string) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const found = lines.find((l) => l.startsWith(prefix));
        if (found === undefined) return;
        waiting.delete(check);
        resolve(found);
      };
      waiting.add(check);
      check();
      void exited.then((code) => {
        if (!waiting.has(check)) return;
        waiting.delete(check);
        reject(new Error(`the worker ended (${code}) before a line "${prefix}…": ${stderr}`));
      }, reject);
    });
  return { child, lines, stderr: () => stderr, exited, line };
}

/** The ids a worker reported with the given tag (`sent`, `read`, `stm`). */
export function reported(worker: Worker, tag: string): string[] {
  const prefix = `${tag} `;
  return worker.lines.filter((l) => l.startsWith(prefix)).map((l) => l.slice(prefix.length));
}
