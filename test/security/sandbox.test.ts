import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { serveHttp, type HttpFake } from '../fakes/http.js';
import {
  commandEnv,
  executeCommand,
  type ExecuteOptions,
} from '../../agent/tools/command-process.js';
import { createRunCommandTool, runCommandConfig } from '../../agent/tools/run-command.js';
import { findBwrap, probeSandbox, sandboxStatus } from '../../agent/tools/sandbox.js';
import type { AssistantConfig } from '../../agent/config.js';
import { checkSandbox } from '../../agent/service/check.js';
import { runCliInProcess } from '../cli-in-process.js';
import type { ToolContext } from '../../agent/tools/types.js';
import { systemClock, type Brain } from '../../src/index.js';
import { plainEnv } from './hostile-repo.js';
import { tally } from './tally.js';

/** The PATH the sandbox is looked for on, as the assistant's config passes it. */
const PATH = process.env.PATH ?? '';

const t = tally('sandbox');
const canary = `canary-${randomBytes(8).toString('hex')}`;
let root: string;
let workspace: string;
let outside: string;
let home: string;
/** Stands for the service: a process whose environment, from its start, holds the canary. */
let service: ChildProcess;
let server: HttpFake;
let serverUrl: string;
const received: string[] = [];

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'brain-security-sandbox-')));
  workspace = join(root, 'workspace');
  outside = join(root, 'outside');
  home = join(root, 'home');
  for (const dir of [workspace, outside, home]) mkdirSync(dir);
  writeFileSync(join(outside, 'secret.txt'), `${canary}\n`);
  service = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60_000)'], {
    env: { PATH: process.env.PATH, BRAIN_TELEGRAM_TOKEN: canary, ANTHROPIC_API_KEY: canary },
    stdio: 'ignore',
  });
  server = await serveHttp((req, res) => {
    received.push(req.url ?? '');
    res.writeHead(404).end();
  });
  serverUrl = server.url;
});

afterAll(async () => {
  service.kill('SIGKILL');
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

/** An approved command line under sh, as run_command runs one the owner said yes to. */
function approved(line: string, extra: Partial<ExecuteOptions> = {}) {
  return executeCommand({
    command: line,
    judgement: {
      verdict: 'ask',
      reason: 'approved',
      commands: [{ argv: ['sh', '-c', line] }],
      simple: false,
    },
    cwd: workspace,
    timeoutMs: 20_000,
    signal: new AbortController().signal,
    env: commandEnv({ ...process.env, BRAIN_TELEGRAM_TOKEN: canary, PATH: process.env.PATH }),
    maxOutputChars: 100_000,
    writable: [workspace],
    ...extra,
  });
}

function context(): ToolContext {
  return {
    brain: undefined as unknown as Brain,
    agent: 'assistant',
    owner: 'owner',
    threadId: 'thr_test',
    session: 'chat/test',
    turnMessageId: 'msg_test',
    workspace,
    signal: new AbortController().signal,
    clock: systemClock,
  };
}

/** Host pids whose command line holds `word`. */
function processesWith(word: string): number[] {
  const pids: number[] = [];
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(word)) pids.push(Number(pid));
    } catch {
      // Gone between the listing and the read.
    }
  }
  return pids;
}

describe('the sandbox status', () => {
  it('says whether bubblewrap is in use, and why not when it is not', () => {
    expect(probeSandbox('/nonexistent/bwrap')).toMatchObject({ inUse: false });
    expect(probeSandbox(undefined).detail).toBe(
      'not in use (bubblewrap not found); commands run unconfined, the allowlist still holds',
    );
    const status = sandboxStatus(PATH);
    if (findBwrap(PATH))
      expect(status.detail).toMatch(/^bubblewrap \d+\.\d+(\.\d+)? in use$|^not in use/);
    expect(status.inUse).toBe(status.detail.endsWith(' in use'));
  });

  it('is one line of `brain agent --check`, failed only when the config requires it and it is missing', () => {
    const check = (sandbox: 'auto' | 'required' | 'off') =>
      checkSandbox({
        tools: { runCommand: runCommandConfig.parse({ sandbox }) },
        commandEnv: { PATH },
      } as unknown as AssistantConfig);
    const { inUse, detail } = sandboxStatus(PATH);
    expect(check('auto')).toEqual({ name: 'sandbox', ok: true, detail });
    expect(check('required')).toMatchObject({ name: 'sandbox', ok: inUse });
    expect(check('off')).toMatchObject({ ok: true, detail: expect.stringMatching(/^off /) });
  });

  it('is one line of `brain doctor`, and a field of its JSON', async () => {
    const env = { BRAIN_DB: join(root, 'doctor.db'), BRAIN_AGENT: 'helios' };
    await runCliInProcess(['send', '--to', 'nova', '--body', 'hello'], env);
    const human = await runCliInProcess(['doctor'], env);
    expect(human.stdout, human.stderr).toContain(`\nsandbox: ${sandboxStatus(PATH).detail}\n`);
    const json = await runCliInProcess(['doctor', '--json'], env);
    expect(JSON.parse(json.stdout).sandbox).toEqual(sandboxStatus(PATH));
  });
});

describe.runIf(sandboxStatus(PATH).inUse)('run_command under bubblewrap', () => {
  it("cannot read the service's environment, through /proc or its own", async () => {
    const line = [
      `cat /proc/${service.pid}/environ`,
      `cat /proc/${process.pid}/environ`,
      'cat /proc/$PPID/environ',
      'cat /proc/1/environ',
      'env',
      'ls /proc',
    ].join('; ');
    const control = await approved(line, { sandbox: 'off' });
    expect(control.output, 'unconfined, /proc has it').toContain(canary);
    const run = await approved(line);
    expect(run.confined).toBe(true);
    expect(run.output).not.toContain(canary);
    t.refused();
  });

  it('writes nowhere but its folders: /etc, the home folder and a folder beside the workspace stay as they were', async () => {
    const control = await approved(`touch '${outside}/control'`, { sandbox: 'off' });
    expect(control.exitCode).toBe(0);
    unlinkSync(join(outside, 'control'));
    for (const path of ['/etc/brain-sandbox-x', `${home}/x`, `${outside}/x`, '/usr/brain-x']) {
      const run = await approved(`touch '${path}'`);
      expect(run.exitCode, path).not.toBe(0);
      expect(existsSync(path), path).toBe(false);
      t.refused();
    }
    const inside = await approved('touch made-here && ls made-here');
    expect(inside).toMatchObject({ exitCode: 0, output: 'made-here\n' });
  });

  it("has a /tmp and /run of its own: the host's temp files and sockets are not there", async () => {
    const hostTmp = join(tmpdir(), `brain-host-${randomBytes(4).toString('hex')}`);
    writeFileSync(hostTmp, canary);
    try {
      const run = await approved(
        `cat '${hostTmp}'; ls -a /run; ls /tmp; echo x > /tmp/own && cat /tmp/own`,
      );
      expect(run.output).not.toContain(canary);
      expect(run.output).toMatch(/No such file/);
      expect(run.output).toMatch(/^x$/m);
      t.refused();
    } finally {
      unlinkSync(hostTmp);
    }
  });

  it('runs with no capabilities, even when the service is root', async () => {
    const run = await approved('grep CapEff /proc/self/status');
    expect(run.output).toMatch(/CapEff:\s+0+\n/);
  });

  it('gets no network without leave: a loopback server receives nothing; with it, the request arrives', async () => {
    const fetchLine = (path: string) =>
      `node -e 'fetch(process.argv[1]).then(r => console.log(r.status), e => console.log(String(e.cause ?? e)))' '${serverUrl}${path}'`;
    received.length = 0;
    const denied = await approved(fetchLine('/denied'));
    expect(received).toEqual([]);
    expect(denied.output).toMatch(/ECONNREFUSED|ENETUNREACH|fetch failed|connect/i);
    t.refused();
    const allowed = await approved(fetchLine('/allowed'), { network: true });
    expect(allowed.output).toContain('404');
    expect(received).toEqual(['/allowed']);
  });

  it("follows tools.runCommand.network for a command the owner approved: 'never' keeps it offline", async () => {
    const command = `node -e 'fetch(process.argv[1]).catch(() => process.exit(3))' '${serverUrl}/tool'`;
    for (const network of ['never', 'approved'] as const) {
      received.length = 0;
      const tool = createRunCommandTool({
        config: runCommandConfig.parse({ network }),
        env: { PATH: process.env.PATH, HOME: home },
      });
      // The tool runs what the policy let through: a `node` line is never judged safe, so here
      // it stands for one the owner approved.
      await tool.run({ command }, context());
      expect(received, network).toEqual(network === 'never' ? [] : ['/tool']);
    }
    t.refused();
  });

  it('gives a command judged safe no network: a partial clone fetches nothing on `git show`', async () => {
    const repo = join(workspace, 'partial');
    mkdirSync(repo);
    const env = plainEnv(home);
    const git = (...args: string[]) =>
      new Promise<void>((resolve) => execFile('git', args, { cwd: repo, env }, () => resolve()));
    await git('init', '-q');
    writeFileSync(join(repo, 'f'), 'text\n');
    await git('add', 'f');
    await git('commit', '-qm', 'one');
    const oid = await new Promise<string>((resolve) =>
      execFile('git', ['rev-parse', 'HEAD:f'], { cwd: repo, env }, (_e, out) =>
        resolve(out.trim()),
      ),
    );
    rmSync(join(repo, '.git', 'objects', oid.slice(0, 2), oid.slice(2)));
    await git('config', 'extensions.partialClone', 'origin');
    await git('config', 'remote.origin.promisor', 'true');
    await git('config', 'remote.origin.url', `${serverUrl}/lazy`);
    received.length = 0;
    await git('show', 'HEAD:f');
    expect(received.length, 'plain git fetches the missing object').toBeGreaterThan(0);

    for (const sandbox of ['auto', 'off'] as const) {
      received.length = 0;
      const tool = createRunCommandTool({
        config: runCommandConfig.parse({ sandbox }),
        env: { PATH: process.env.PATH, HOME: home },
      });
      const out = await tool.run({ command: 'git show HEAD:f', cwd: 'partial' }, context());
      expect(out.isError, out.content).toBe(true);
      expect(received, sandbox).toEqual([]);
      t.refused();
    }
  });

  it('kills the whole sandbox at the timeout, and what a command leaves behind, even in a session of its own', async () => {
    const tag = () => `${30 + Math.floor(Math.random() * 1e6) / 1e6}`;
    const sleeping = (t: string) => processesWith(`sleep\0${t}\0`);
    // Unconfined, a process in a new session leaves the process group and outlives the call
    // (which still returns, though it holds the output pipe).
    const escaped = tag();
    const control = await approved(`setsid sleep ${escaped} & sleep 0.5; echo done`, {
      sandbox: 'off',
    });
    expect(control).toMatchObject({ exitCode: 0, output: 'done\n' });
    await vi.waitFor(() => expect(sleeping(escaped)).toHaveLength(1));
    for (const pid of sleeping(escaped)) process.kill(pid, 'SIGKILL');

    const timed = tag();
    const timedOut = await approved(`setsid sleep ${timed} & sleep ${timed}`, { timeoutMs: 500 });
    expect(timedOut.timedOut).toBe(true);
    await vi.waitFor(() => expect(sleeping(timed)).toEqual([]), { timeout: 5000 });
    const left = tag();
    const run = await approved(`setsid sleep ${left} & (sleep ${left}; touch late) & echo started`);
    expect(run).toMatchObject({ exitCode: 0, timedOut: false, output: 'started\n' });
    await vi.waitFor(() => expect(sleeping(left)).toEqual([]), { timeout: 5000 });
    t.refused();
  });

  it('runs unconfined when told to, and the allowlisted environment still holds', async () => {
    const run = await approved('echo ok; env', { sandbox: 'off' });
    expect(run.confined).toBe(false);
    expect(run.output).toMatch(/^ok\n/);
    expect(run.output).not.toContain(canary);
  });
});
