import type { CliResult } from './helpers.js';

/**
 * Run the `brain` program inside this test process: the same commander program and handleError
 * that cli/main.ts wires, with the environment set as runCli sets it, stdout and stderr captured
 * and the exit code taken from what the command left in process.exitCode or handleError returned.
 *
 * A spawned CLI costs ~200 ms of Node start-up; this costs a few. Use it for the many cases that
 * check what a command prints and how it fails; keep runCli (a real process) for the wiring of
 * each command family (exit status, stdio, start-up path), for standard input, and for anything
 * that proves behaviour across processes. Calls run one at a time (they swap process.env).
 */
export function runCliInProcess(
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<CliResult> {
  const run = queue.then(() => runOnce(args, env));
  queue = run.catch(() => undefined);
  return run;
}

let queue: Promise<unknown> = Promise.resolve();

type Write = typeof process.stdout.write;

async function runOnce(
  args: string[],
  env: Record<string, string | undefined>,
): Promise<CliResult> {
  const { createProgram } = await import('../cli/program.js');
  const { handleError } = await import('../cli/handle-error.js');

  const wanted: Record<string, string | undefined> = {
    BRAIN_EMBEDDER: 'none',
    NO_COLOR: '1',
    ...env,
  };
  const savedEnv = new Map<string, string | undefined>();
  for (const [key, value] of Object.entries(wanted)) {
    savedEnv.set(key, process.env[key]);
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }

  let stdout = '';
  let stderr = '';
  const capture =
    (append: (text: string) => void): Write =>
    (chunk: unknown, encoding?: unknown, callback?: unknown): boolean => {
      append(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
      const done = typeof encoding === 'function' ? encoding : callback;
      if (typeof done === 'function') queueMicrotask(() => (done as () => void)());
      return true;
    };
  const saved = {
    outWrite: process.stdout.write,
    errWrite: process.stderr.write,
    outTty: process.stdout.isTTY,
    errTty: process.stderr.isTTY,
    exitCode: process.exitCode,
  };
  // A spawned CLI writes into pipes: not a terminal, so no colour and no redrawn progress bars.
  process.stdout.isTTY = false;
  process.stderr.isTTY = false;
  process.stdout.write = capture((t) => (stdout += t));
  process.stderr.write = capture((t) => (stderr += t));
  process.exitCode = undefined;

  let code: number;
  try {
    await (await createProgram(args)).parseAsync(args, { from: 'user' });
    code = Number(process.exitCode ?? 0);
  } catch (err) {
    code = handleError(err);
  } finally {
    process.stdout.write = saved.outWrite;
    process.stderr.write = saved.errWrite;
    process.stdout.isTTY = saved.outTty;
    process.stderr.isTTY = saved.errTty;
    process.exitCode = saved.exitCode;
    for (const [key, value] of savedEnv) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
  return { code, stdout, stderr };
}
