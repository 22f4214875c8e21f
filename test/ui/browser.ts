import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { CLI } from '../helpers.js';

export const CHROMIUM = process.env.BRAIN_TEST_CHROMIUM ?? '/usr/bin/chromium';

/** Why the browser tests cannot run here, or undefined when they can. */
export function browserMissing(): string | undefined {
  return existsSync(CHROMIUM)
    ? undefined
    : `no chromium at ${CHROMIUM} (install Debian's chromium package, as .ci/run does, or set BRAIN_TEST_CHROMIUM)`;
}

/** The system chromium, headless, with everything that would reach beyond the loopback page off. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-default-apps',
      '--disable-extensions',
      '--no-first-run',
      '--no-default-browser-check',
      '--metrics-recording-only',
      '--no-sandbox', // CI runs as root, where chromium's sandbox cannot start
    ],
  });
}

export interface UiProcess {
  url: string;
  child: ChildProcess;
  /** What it has written on stderr so far. */
  stderr(): string;
  stop(): Promise<void>;
}

/** `brain ui --port 0` as a real process on the given database; resolves with its URL. */
export function spawnUi(
  dbPath: string,
  extra: string[] = [],
  env: Record<string, string> = {},
): Promise<UiProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, '--db', dbPath, 'ui', '--port', '0', ...extra], {
      env: { ...process.env, BRAIN_EMBEDDER: 'none', NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      const m = /brain ui: (http:\/\/\S+)/.exec(stderr);
      if (m) {
        resolve({
          url: m[1]!.replace(/\/$/, ''),
          child,
          stderr: () => stderr,
          stop: () =>
            new Promise((done) => {
              if (child.exitCode !== null) return done();
              child.once('exit', () => done());
              child.kill('SIGTERM');
            }),
        });
      }
    });
    child.once('exit', (code) => reject(new Error(`brain ui exited ${code}: ${stderr}`)));
  });
}
