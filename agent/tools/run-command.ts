import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { z } from 'zod';
import { judgeCommand } from '../permissions/shell.js';
import { commandEnv, executeCommand, type ExecuteResult } from './command-process.js';
import type { Tool } from './types.js';

/** `tools.runCommand` in the assistant's config (wired into agent/config.ts at merge). */
export const runCommandConfig = z
  .strictObject({
    /** Seconds a command may run when the call names no timeout. */
    defaultTimeoutS: z.number().positive().max(86_400).default(30),
    /** The longest timeout a call may ask for. */
    maxTimeoutS: z.number().positive().max(86_400).default(600),
    /** stdout and stderr together are cut to this many characters (head and tail kept). */
    maxOutputChars: z.number().int().min(200).max(1_000_000).default(30_000),
    /** Directories besides the workspace a command may run in. */
    roots: z.array(z.string().min(1, 'must not be empty')).default([]),
  })
  .refine((c) => c.defaultTimeoutS <= c.maxTimeoutS, {
    message: 'defaultTimeoutS must not be above maxTimeoutS',
    path: ['defaultTimeoutS'],
  })
  .prefault({});

export type RunCommandConfig = z.output<typeof runCommandConfig>;

export interface RunCommandDeps {
  config?: RunCommandConfig;
  /** The environment the command's is made from (secrets removed); default process.env. */
  env?: Record<string, string | undefined>;
}

/**
 * Resolve `cwd` (relative to the workspace) with symlinks followed, and accept it only inside
 * the workspace or a configured root. Undefined when it is outside or not a directory.
 */
export async function resolveCwd(
  cwd: string | undefined,
  workspace: string,
  roots: readonly string[],
): Promise<string | undefined> {
  let real: string;
  try {
    real = await realpath(resolve(workspace, cwd ?? '.'));
    if (!(await stat(real)).isDirectory()) return undefined;
  } catch (err) {
    // ENOENT, ENOTDIR, EACCES: no directory there to run in; the caller says so.
    if ((err as NodeJS.ErrnoException).code) return undefined;
    throw err;
  }
  for (const root of [workspace, ...roots]) {
    let realRoot: string;
    try {
      realRoot = await realpath(resolve(workspace, root));
    } catch {
      // A configured root that does not exist holds nothing to run in.
      continue;
    }
    const rel = relative(realRoot, real);
    if (rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))) return real;
  }
  return undefined;
}

/** `run_command`: one command line in the workspace, killed with its children at the timeout. */
export function createRunCommandTool(deps: RunCommandDeps = {}) {
  const config = deps.config ?? runCommandConfig.parse(undefined);
  const input = z.strictObject({
    command: z.string().min(1, 'must not be empty').max(10_000),
    cwd: z.string().min(1).optional(),
    timeout_s: z.number().positive().max(config.maxTimeoutS).optional(),
  });
  const tool: Tool<z.output<typeof input>> = {
    name: 'run_command',
    description:
      'Run a shell command in the workspace (or cwd inside it). Output is capped; default timeout ' +
      `${config.defaultTimeoutS} s. Pipelines and lists run under sh; each command is checked.`,
    schema: input,
    readOnly: false,
    run: async (args, ctx) => {
      const judgement = await judgeCommand(args.command, {
        cwd: ctx.workspace,
        roots: [ctx.workspace],
      });
      if (!judgement.commands) return { content: `refused: ${judgement.reason}`, isError: true };
      const cwd = await resolveCwd(args.cwd, ctx.workspace, config.roots);
      if (!cwd)
        return {
          content: `refused: cwd ${args.cwd ?? '.'} is not a directory inside the workspace or an allowed root`,
          isError: true,
        };
      const timeoutS = args.timeout_s ?? config.defaultTimeoutS;
      const result = await executeCommand({
        command: args.command,
        judgement,
        cwd,
        timeoutMs: timeoutS * 1000,
        signal: ctx.signal,
        env: commandEnv(deps.env ?? process.env),
        maxOutputChars: config.maxOutputChars,
      });
      return { content: describeResult(result, timeoutS), isError: result.exitCode !== 0 };
    },
  };
  return tool;
}

function describeResult(r: ExecuteResult, timeoutS: number): string {
  const status = r.timedOut
    ? `timed out after ${timeoutS} s; the process group was killed`
    : r.aborted
      ? 'cancelled; the process group was killed'
      : r.signal
        ? `killed by ${r.signal}`
        : `exit code ${r.exitCode}`;
  return `${status}\n${r.output || '(no output)'}`;
}
