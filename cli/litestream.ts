import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { BrainError } from '../src/index.js';
import { executablePath } from './config.js';

/** The npm package that ships Litestream's binary for linux x64 (an optional dependency). */
export const LITESTREAM_PACKAGE = '@flydotio/litestream-linux-x64';

export interface Litestream {
  /** The binary. */
  path: string;
  /** Where it was found: the package installed with brain, or the PATH. */
  source: 'package' | 'PATH';
}

/**
 * Litestream from the package installed with brain, else the first on PATH; undefined when
 * neither. `packaged: false` looks on the PATH only.
 */
export function findLitestream(
  searchPath = executablePath(),
  options: { packaged?: boolean } = {},
): Litestream | undefined {
  if (options.packaged ?? true)
    try {
      const pkg = createRequire(import.meta.url).resolve(`${LITESTREAM_PACKAGE}/package.json`);
      const path = join(dirname(pkg), 'litestream');
      if (isExecutable(path)) return { path, source: 'package' };
    } catch (err) {
      // Not installed (another platform, or --omit=optional): the PATH is the other place.
      if ((err as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw err;
    }
  for (const dir of searchPath.split(delimiter)) {
    if (!dir) continue;
    const path = join(dir, 'litestream');
    if (isExecutable(path)) return { path, source: 'PATH' };
  }
  return undefined;
}

/** Litestream, or a NOT_FOUND that says where it was looked for and how to get it. */
export function requireLitestream(): Litestream {
  const found = findLitestream();
  if (found) return found;
  throw new BrainError(
    'NOT_FOUND',
    `Litestream is not installed: neither ${LITESTREAM_PACKAGE} (linux x64) nor litestream on PATH; install Litestream 0.3 (https://litestream.io/install/)`,
  );
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    // Missing or not executable: not this one.
    return false;
  }
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run Litestream to its end, output captured (restore, generations, version). */
export function runLitestream(
  litestream: Litestream,
  args: readonly string[],
  options: { timeoutMs?: number } = {},
): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(
      litestream.path,
      args,
      { timeout: options.timeoutMs ?? 0, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
        resolve({ code, stdout, stderr: stderr || (err && code === null ? err.message : '') });
      },
    );
  });
}

/** Litestream's own last error line ("… error=\"no matching backups found\""), for a message. */
export function litestreamError(result: RunResult): string {
  // Litestream logs to stdout once it has read a config, to stderr before.
  const lines = `${result.stdout}\n${result.stderr}`.trim().split('\n').filter(Boolean);
  const last = [...lines].reverse().find((l) => /ERROR|error/.test(l)) ?? lines.at(-1) ?? '';
  const quoted = /error="((?:[^"\\]|\\.)*)"/.exec(last)?.[1];
  return quoted ?? (last || `exited with code ${result.code}`);
}

/**
 * A Litestream config in a private temp folder (it names paths, never secrets), removed by the
 * returned cleanup.
 */
export function writeConfigFile(yaml: string): { path: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'brain-litestream-'));
  const path = join(dir, 'litestream.yml');
  writeFileSync(path, yaml, { mode: 0o600 });
  return { path, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Start `litestream replicate`; its log goes to our stderr, so stdout stays ours. */
export function startReplicate(litestream: Litestream, configPath: string): ChildProcess {
  return spawn(litestream.path, ['replicate', '-config', configPath], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}
