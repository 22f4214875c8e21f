import { execFileSync } from 'node:child_process';
import {
  chmod,
  mkdir,
  mkdtemp,
  readFile,
  realpath,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { systemClock, type Brain } from '../../../src/index.js';
import { judgeCommand } from '../../../agent/permissions/shell.js';
import { executeCommand, outputCapture } from '../../../agent/tools/command-process.js';
import { createRunCommandTool, runCommandConfig } from '../../../agent/tools/run-command.js';
import type { ToolContext } from '../../../agent/tools/types.js';

let dir: string;
let workspace: string;
let outside: string;

/** A child (sh) that starts a grandchild `sleep`, writes both pids, and waits. */
const SPAWNER = 'sleep 30 &\necho $$ $! > pids.tmp\nmv pids.tmp pids.txt\necho started\nwait\n';

beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'brain-run-command-')));
  workspace = join(dir, 'workspace');
  outside = join(dir, 'outside');
  await mkdir(join(workspace, 'sub'), { recursive: true });
  await mkdir(outside);
  await symlink(outside, join(workspace, 'escape'));
  await writeFile(join(workspace, 'spawner.sh'), SPAWNER);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function context(signal = new AbortController().signal): ToolContext {
  return {
    // run_command never touches the brain.
    brain: undefined as unknown as Brain,
    agent: 'assistant',
    owner: 'owner',
    threadId: 'thr_test',
    session: 'chat/test',
    turnMessageId: 'msg_test',
    workspace,
    signal,
    clock: systemClock,
  };
}

/** Gone: no such process, or a zombie waiting to be reaped by whoever adopted it. */
async function alive(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return stat !== '' && stat.split(') ')[1]?.[0] !== 'Z';
}

async function spawnedPids(): Promise<number[]> {
  const text = await readFile(join(workspace, 'pids.txt'), 'utf8');
  return text.trim().split(' ').map(Number);
}

const tool = createRunCommandTool({
  config: runCommandConfig.parse({ maxOutputChars: 1000 }),
  env: { PATH: process.env.PATH, HOME: '/home/test' },
});
// Process ids a command writes are the host's only outside the sandbox's PID namespace;
// test/security/sandbox.test.ts checks the group kill inside it.
const unconfined = createRunCommandTool({
  config: runCommandConfig.parse({ maxOutputChars: 1000, sandbox: 'off' }),
  env: { PATH: process.env.PATH, HOME: '/home/test' },
});

describe('run_command', () => {
  it('runs a simple command as an argv with no shell, so $HOME stays literal', async () => {
    const out = await tool.run({ command: "echo '$HOME' 'a;b'" }, context());
    expect(out).toEqual({ content: 'exit code 0\n$HOME a;b\n', isError: false });
    // The same argv given with a line a shell would expand: the argv is what runs.
    const result = await executeCommand({
      command: 'echo $HOME',
      judgement: {
        verdict: 'safe',
        reason: 'test',
        commands: [{ argv: ['echo', '$HOME'] }],
        simple: true,
      },
      cwd: workspace,
      timeoutMs: 10_000,
      signal: new AbortController().signal,
      env: { PATH: process.env.PATH ?? '', HOME: '/home/test' },
      maxOutputChars: 1000,
    });
    expect(result.output).toBe('$HOME\n');
  });

  it('runs a pipeline under sh and reports a failing exit code as an error', async () => {
    expect(await tool.run({ command: 'echo hi | tr a-z A-Z' }, context())).toEqual({
      content: 'exit code 0\nHI\n',
      isError: false,
    });
    expect(await tool.run({ command: 'ls no-such-file' }, context())).toMatchObject({
      content: expect.stringMatching(/^exit code 2\n.*no-such-file/s),
      isError: true,
    });
  });

  it('refuses a command the judge could not parse, and runs nothing of it', async () => {
    const out = await tool.run({ command: 'touch marker $(id)' }, context());
    expect(out).toEqual({
      content: expect.stringContaining('refused: a command substitution'),
      isError: true,
    });
    await expect(readFile(join(workspace, 'marker'))).rejects.toThrow(/ENOENT/);
    await expect(
      executeCommand({
        command: 'id',
        judgement: { verdict: 'ask', reason: 'unparsed', commands: undefined, simple: false },
        cwd: workspace,
        timeoutMs: 1000,
        signal: new AbortController().signal,
        env: {},
        maxOutputChars: 1000,
      }),
    ).rejects.toThrow(/refused: the command was not parsed/);
  });

  it('kills the whole process group at the timeout: the child and its grandchild are gone', async () => {
    await rm(join(workspace, 'pids.txt'), { force: true });
    const out = await unconfined.run({ command: 'sh spawner.sh', timeout_s: 0.5 }, context());
    expect(out.content).toMatch(/^timed out after 0.5 s; the process group was killed\nstarted/);
    expect(out.isError).toBe(true);
    const pids = await spawnedPids();
    expect(pids).toHaveLength(2);
    for (const pid of pids) await vi.waitFor(async () => expect(await alive(pid)).toBe(false));
  });

  it('kills the whole process group when the turn is cancelled', async () => {
    await rm(join(workspace, 'pids.txt'), { force: true });
    const controller = new AbortController();
    const running = unconfined.run({ command: 'sh spawner.sh' }, context(controller.signal));
    const pids = await vi.waitFor(spawnedPids, { timeout: 10_000, interval: 50 });
    for (const pid of pids) expect(await alive(pid)).toBe(true);
    controller.abort();
    const out = await running;
    expect(out.content).toMatch(/^cancelled; the process group was killed/);
    for (const pid of pids) await vi.waitFor(async () => expect(await alive(pid)).toBe(false));
  });

  it('keeps the head and tail of long output and states what was cut', async () => {
    const out = await tool.run({ command: 'seq 1 20000' }, context());
    expect(out.content.startsWith('exit code 0\n1\n2\n3\n')).toBe(true);
    expect(out.content.endsWith('19999\n20000\n')).toBe(true);
    expect(out.content).toMatch(/\[… 107894 of 108894 characters cut …\]/);
    const capture = outputCapture(10);
    for (const chunk of ['abc', 'defgh', 'ijklmnop', 'qr']) capture.add(chunk);
    expect(capture.text()).toBe('abcde\n[… 8 of 18 characters cut …]\nnopqr');
  });

  it("leaves the assistant's secrets out of the command's environment", async () => {
    const secretive = createRunCommandTool({
      env: {
        PATH: process.env.PATH,
        HOME: '/home/test',
        LANG: 'C.UTF-8',
        ANTHROPIC_API_KEY: 'sk-ant-secret',
        GITHUB_TOKEN: 'ghp-secret',
        BRAIN_TELEGRAM_TOKEN: 'tg-secret',
        BRAIN_ASSISTANT_CONFIG: '/secret/path',
        DB_PASSWORD: 'pw-secret',
        MY_SECRET: 'my-secret',
        AWS_ACCESS_KEY_ID: 'aws-secret',
        BRAVE_API_KEY: 'brave-secret',
        // Names no denylist would guess: only the allowlisted names pass.
        DATABASE_URL: 'postgres://u:secret@db/x',
        GIT_CONFIG_PARAMETERS: "'alias.secret'='!true'",
        LD_PRELOAD: '/secret/lib.so',
      },
    });
    const out = await secretive.run({ command: 'env' }, context());
    expect(out.content).toContain('PATH=');
    expect(out.content).toContain('HOME=/home/test');
    expect(out.content).toContain('LANG=C.UTF-8');
    expect(out.content).not.toMatch(/secret/);
  });

  it("does not let a repository's core.fsmonitor make `git status` run a program", async () => {
    const repo = join(workspace, 'repo');
    await mkdir(repo);
    execFileSync('git', ['init', '-q', repo]);
    const hook = join(repo, 'hook.sh');
    await writeFile(hook, `#!/bin/sh\ntouch '${join(repo, 'HIT')}'\nexit 1\n`);
    await chmod(hook, 0o755);
    execFileSync('git', ['-C', repo, 'config', 'core.fsmonitor', hook]);
    const out = await tool.run({ command: 'git status --short', cwd: 'repo' }, context());
    expect(out.isError).toBe(false);
    await expect(readFile(join(repo, 'HIT'))).rejects.toThrow(/ENOENT/);
  });

  it('runs in a directory inside the workspace and refuses one outside, even through a symlink', async () => {
    expect(await tool.run({ command: 'pwd', cwd: 'sub' }, context())).toEqual({
      content: `exit code 0\n${join(workspace, 'sub')}\n`,
      isError: false,
    });
    for (const cwd of ['..', outside, 'escape', '/', 'missing']) {
      const out = await tool.run({ command: 'pwd', cwd }, context());
      expect(out, cwd).toEqual({
        content: expect.stringContaining(`refused: cwd ${cwd} is not a directory inside`),
        isError: true,
      });
    }
    const rooted = createRunCommandTool({
      config: runCommandConfig.parse({ roots: [outside] }),
      env: process.env,
    });
    expect(await rooted.run({ command: 'pwd', cwd: 'escape' }, context())).toEqual({
      content: `exit code 0\n${outside}\n`,
      isError: false,
    });
  });

  it('judges the same line it runs: the argv of a simple command comes from the parse', async () => {
    const judgement = await judgeCommand('printf \'%s|\' "a b" c', {
      cwd: process.cwd(),
      roots: [process.cwd()],
    });
    expect(judgement.commands).toEqual([{ argv: ['printf', '%s|', 'a b', 'c'] }]);
    expect(await tool.run({ command: 'printf \'%s|\' "a b" c' }, context())).toEqual({
      content: 'exit code 0\na b|c|',
      isError: false,
    });
  });
});
