import { spawn } from 'node:child_process';
import type { CommandJudgement } from '../permissions/shell.js';
import {
  GIT_FIXED,
  GIT_OFFLINE,
  gitInvocations,
  repositoryOverrides,
  withGitConfig,
} from './git-config.js';
import { bwrapArgs, currentSandbox } from './sandbox.js';

export interface ExecuteOptions {
  /** The command line as the model wrote it (run under `sh -c` when not simple, without `line`). */
  command: string;
  /** judgeCommand's judgement of that same line: without argv lists nothing runs. */
  judgement: CommandJudgement;
  /** An existing directory, already checked to lie inside the allowed roots. */
  cwd: string;
  timeoutMs: number;
  signal: AbortSignal;
  env: Record<string, string>;
  /** stdout and stderr together are cut to this many characters, head and tail kept. */
  maxOutputChars: number;
  /** Real paths the command may write when confined (default: cwd). */
  writable?: readonly string[];
  /** Whether a confined command shares the host's network (default false). */
  network?: boolean;
  /**
   * `auto` (default): under bubblewrap when it is usable, else unconfined; `required`: refused
   * without it; `off`: unconfined.
   */
  sandbox?: 'auto' | 'required' | 'off';
}

export interface ExecuteResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  /** stdout and stderr interleaved as they came, cut in the middle when too long. */
  output: string;
  /** Characters the command printed in all. */
  totalChars: number;
  /** Whether it ran in the sandbox. */
  confined: boolean;
}

/** A command that is not run, and why: the caller tells the model. */
export class CommandRefused extends Error {}

/**
 * Run a judged command in its own process group: a simple command as its argv with no shell, a
 * pipeline or list under `sh -c`; inside bubblewrap when it is usable (agent/tools/sandbox.ts).
 * git in it runs no program a repository's config names (agent/tools/git-config.ts). At the
 * timeout, on the abort signal, and once the command itself has exited, the whole group is
 * killed, so no child or grandchild outlives the call (in the sandbox its PID namespace goes
 * with it). The policy is not decided here: the caller has already allowed this command.
 */
export async function executeCommand(options: ExecuteOptions): Promise<ExecuteResult> {
  const { judgement } = options;
  const argvs = judgement.commands?.map((c) => c.argv);
  const first = argvs?.[0];
  if (!argvs || !first)
    throw new CommandRefused(`refused: the command was not parsed (${judgement.reason})`);
  if (options.signal.aborted) throw new Error('the turn was cancelled');
  const sandbox = options.sandbox === 'off' ? undefined : currentSandbox(options.env.PATH ?? '');
  if (options.sandbox === 'required' && !sandbox?.inUse)
    throw new CommandRefused(`refused: the sandbox is required but ${sandbox?.detail}`);

  const network = options.network ?? false;
  let env = withGitConfig(
    { ...options.env, PWD: options.cwd },
    network ? GIT_FIXED : [...GIT_FIXED, ...GIT_OFFLINE],
  );
  const invocations = gitInvocations(argvs);
  if (invocations.length > 0) {
    const git = await repositoryOverrides(invocations, {
      cwd: options.cwd,
      env,
      signal: options.signal,
    });
    if (git.refused !== undefined) throw new CommandRefused(`refused: ${git.refused}`);
    env = withGitConfig({ ...env, ...git.env }, git.pairs);
  }

  let argv = judgement.simple ? first : ['/bin/sh', '-c', judgement.line ?? options.command];
  const confined = sandbox?.bwrap !== undefined;
  if (sandbox?.bwrap) {
    const writable = options.writable ?? [options.cwd];
    argv = [
      sandbox.bwrap,
      ...bwrapArgs({
        cwd: options.cwd,
        writable,
        network,
        readable: env.HOME ? [env.HOME] : [],
      }),
      ...argv,
    ];
    // The host's TMPDIR is hidden or read-only in there; its /tmp is the command's own.
    env.TMPDIR = '/tmp';
  }
  // Reading git's config takes a moment: a turn cancelled meanwhile starts nothing.
  if (options.signal.aborted) throw new Error('the turn was cancelled');
  return spawnGroup(argv, env, options, confined);
}

/** How long output still comes after the command has exited, from what it left running. */
const PIPE_GRACE_MS = 200;

function spawnGroup(
  argv: readonly string[],
  env: Record<string, string>,
  options: ExecuteOptions,
  confined: boolean,
): Promise<ExecuteResult> {
  const [file = '', ...args] = argv;
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      cwd: options.cwd,
      env,
      shell: false,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const capture = outputCapture(options.maxOutputChars);
    let timedOut = false;
    let aborted = false;
    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch (err) {
        // ESRCH: the group is already gone, which is what was wanted.
        if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);
    const onAbort = () => {
      aborted = true;
      killGroup();
    };
    options.signal.addEventListener('abort', onAbort, { once: true });
    // The service's exit, forced included, takes the group with it (the group is detached).
    process.once('exit', killGroup);
    for (const stream of [child.stdout, child.stderr]) {
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => capture.add(chunk));
    }
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    // The command is done when it exits: what it left running in the background goes with it.
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      killGroup();
      // Unconfined, a process that left the group (setsid) can hold the pipes open for as long
      // as it likes: what it has not written a moment after the command ended is not waited for.
      setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, PIPE_GRACE_MS).unref();
    });
    child.on('error', (err) => {
      process.off('exit', killGroup);
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      reject(new Error(`could not start ${file}: ${err.message}`));
    });
    child.on('close', (code, signal) => {
      process.off('exit', killGroup);
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      resolve({
        exitCode: exit?.code ?? code,
        signal: exit?.signal ?? signal,
        timedOut,
        aborted,
        output: capture.text(),
        totalChars: capture.total(),
        confined,
      });
    });
  });
}

/** Keeps the first and last half of `max` characters, and says how much was cut between. */
export function outputCapture(max: number) {
  const half = Math.floor(max / 2);
  let head = '';
  let tail = '';
  let total = 0;
  return {
    add(chunk: string) {
      total += chunk.length;
      if (head.length < half) {
        const take = half - head.length;
        head += chunk.slice(0, take);
        chunk = chunk.slice(take);
      }
      if (chunk) tail = (tail + chunk).slice(-half);
    },
    total: () => total,
    text(): string {
      const cut = total - head.length - tail.length;
      if (cut <= 0) return head + tail;
      return `${head}\n[… ${cut} of ${total} characters cut …]\n${tail}`;
    },
  };
}

/** What a command may see of the service's environment: nothing that can hold a secret. */
const PASSED = /^(PATH|HOME|LANG|LC_[A-Z_]+|TZ|TERM|USER|LOGNAME|SHELL|TMPDIR|PWD)$/;

/**
 * The environment a command gets: only the names above from the service's (an allowlist: a
 * secret under a name no one thought of stays out), pagers and git's prompts turned off, since
 * no one is at the terminal, and no lazy fetch of missing objects by a read-only git.
 */
export function commandEnv(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env))
    if (value !== undefined && PASSED.test(name)) out[name] = value;
  return {
    ...out,
    PAGER: 'cat',
    GIT_PAGER: 'cat',
    GIT_TERMINAL_PROMPT: '0',
    GIT_NO_LAZY_FETCH: '1',
  };
}
