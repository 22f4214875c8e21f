import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers.js';

/**
 * A command run_command started lives in its own process group; when the process that started
 * it exits (a forced stop of `brain agent` calls process.exit), the group is killed with it.
 */

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const MODULE = pathToFileURL(join(process.cwd(), 'dist/agent/tools/command-process.js')).href;

/** Whether the process runs: a zombie has ended (a container's init may never reap it). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    // No such process: it has ended and been reaped.
    return false;
  }
}

async function ended(pid: number, ms = 5_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (running(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}

describe('a running command when its process exits', { timeout: 30_000 }, () => {
  it('has its process group killed on process.exit', async () => {
    const { dir, cleanup } = tempDir('brain-command-group-');
    cleanups.push(cleanup);
    const pidFile = join(dir, 'pid');
    const runner = `
      import { readFileSync } from 'node:fs';
      import { executeCommand } from ${JSON.stringify(MODULE)};
      void executeCommand({
        command: 'echo $$ > ${pidFile}.tmp && mv ${pidFile}.tmp ${pidFile}; exec sleep 300',
        judgement: { verdict: 'ask', reason: 'test', commands: [{ argv: ['sleep', '300'] }] },
        cwd: ${JSON.stringify(dir)},
        timeoutMs: 300000,
        signal: new AbortController().signal,
        env: { PATH: process.env.PATH },
        maxOutputChars: 1000,
        sandbox: 'off',
      });
      const started = () => { try { return readFileSync(${JSON.stringify(pidFile)}, 'utf8').trim() !== ''; } catch { return false; } };
      const wait = () => (started() ? process.exit(0) : setTimeout(wait, 10));
      wait();`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', runner], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    cleanups.push(() => child.exitCode === null && child.kill('SIGKILL'));
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
    // The command's shell execs sleep: the group's leader is the command itself.
    const pid = Number(readFileSync(pidFile, 'utf8'));
    cleanups.push(() => running(pid) && process.kill(-pid, 'SIGKILL'));
    expect(pid).toBeGreaterThan(0);
    expect(await ended(pid)).toBe(true);
  });
});
