import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../src/db/package-root.js';

/**
 * The worker's source: bench/ is development code, run by tsx and never compiled into the
 * package, so a worker is a Node process with tsx's loader.
 */
export const WORKER = join(packageRoot(), 'bench', 'stress-worker.ts');
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

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

/** Start one worker process: `node --import tsx bench/stress-worker.ts ROLE ARGS…`. */
export function spawnWorker(args: string[]): Worker {
  const child = spawn(process.execPath, ['--import', TSX, WORKER, ...args], {
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
