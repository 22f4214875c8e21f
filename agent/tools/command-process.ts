import { spawn } from 'node:child_process';
import type { CommandJudgement } from '../permissions/shell.js';

export interface ExecuteOptions {
  /** The command line as the model wrote it (run under `sh -c` when not simple). */
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
}

/**
 * Run a judged command in its own process group: a simple command as its argv with no shell, a
 * pipeline or list under `sh -c`. At the timeout, on the abort signal, and once the command
 * itself has exited, the whole group is killed, so no child or grandchild outlives the call.
 * The policy is not decided here: the caller has already allowed this command.
 */
export function executeCommand(options: ExecuteOptions): Promise<ExecuteResult> {
  const { judgement } = options;
  const first = judgement.commands?.[0]?.argv;
  if (!judgement.commands || !first)
    return Promise.reject(new Error(`refused: the command was not parsed (${judgement.reason})`));
  if (options.signal.aborted) return Promise.reject(new Error('the turn was cancelled'));
  const [file, args] = judgement.simple
    ? [first[0] ?? '', first.slice(1)]
    : ['/bin/sh', ['-c', options.command]];

  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env,
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
    for (const stream of [child.stdout, child.stderr]) {
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => capture.add(chunk));
    }
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    // The command is done when it exits: what it left running in the background goes with it.
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      killGroup();
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      reject(new Error(`could not start ${file}: ${err.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      resolve({
        exitCode: exit?.code ?? code,
        signal: exit?.signal ?? signal,
        timedOut,
        aborted,
        output: capture.text(),
        totalChars: capture.total(),
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

/** Names whose values are secrets, or belong to the assistant and its model providers. */
const SECRET_NAME =
  /TOKEN|SECRET|PASSWORD|PASSWD|_KEY$|^KEY$|API_?KEY|CREDENTIAL|COOKIE|_AUTH|AUTH_|SESSION/i;
const SECRET_PREFIX = /^(BRAIN_|ANTHROPIC_|OPENAI_|OLLAMA_|AWS_|GOOGLE_|AZURE_|BRAVE_|SSH_AUTH)/i;

/**
 * The environment a command gets: the assistant's own minus anything that looks like a secret
 * or belongs to the assistant (tokens, keys, passwords, BRAIN_*, provider settings); pagers and
 * git's prompts turned off, since no one is at the terminal; git's fsmonitor hook off.
 */
export function commandEnv(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || SECRET_NAME.test(name) || SECRET_PREFIX.test(name)) continue;
    out[name] = value;
  }
  // A repository's own config can name a program `git status` runs (core.fsmonitor): a command
  // judged read-only must not start one, so the setting is overridden for every git call.
  const n = Number(out.GIT_CONFIG_COUNT ?? 0) || 0;
  out[`GIT_CONFIG_KEY_${n}`] = 'core.fsmonitor';
  out[`GIT_CONFIG_VALUE_${n}`] = 'false';
  out.GIT_CONFIG_COUNT = String(n + 1);
  return { ...out, PAGER: 'cat', GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0' };
}
