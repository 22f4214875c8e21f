import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { openBrain, type Brain, type OpenBrainOptions } from '../src/index.js';

export const ROOT = resolve(import.meta.dirname, '..');
/** The `brain` command that ships: the bundle of the command line (scripts/bundle-cli.mjs). */
export const CLI = join(ROOT, 'dist', 'bin', 'main.js');

/** A fresh temp folder, removed by the returned cleanup. */
export function tempDir(prefix = 'brain-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface TempBrain {
  brain: Brain;
  dir: string;
  path: string;
  /** Open another connection to the same file (as another process would). */
  reopen(options?: Partial<OpenBrainOptions>): Promise<Brain>;
  cleanup(): void;
}

/** A brain on a real SQLite file in a temp folder. */
export async function tempBrain(options: Partial<OpenBrainOptions> = {}): Promise<TempBrain> {
  const { dir, cleanup } = tempDir();
  const path = join(dir, 'brain.db');
  const opened: Brain[] = [];
  const open = async (o: Partial<OpenBrainOptions> = {}) => {
    const b = await openBrain({ dbPath: path, ...options, ...o });
    opened.push(b);
    return b;
  };
  const brain = await open();
  return {
    brain,
    dir,
    path,
    reopen: open,
    cleanup() {
      for (const b of opened) b.close();
      cleanup();
    },
  };
}

/** A clock that only moves when told: tick() advances it by the given milliseconds. */
export function fixedClock(start = '2026-01-01T00:00:00.000Z') {
  let now = Date.parse(start);
  const clock = () => new Date(now);
  return Object.assign(clock, {
    tick(ms = 1000) {
      now += ms;
    },
  });
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run the built `brain` CLI as a separate process. */
export function runCli(
  args: string[],
  env: Record<string, string | undefined> = {},
  input?: string,
): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, BRAIN_EMBEDDER: 'none', NO_COLOR: '1', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}
