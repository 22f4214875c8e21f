import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { z } from 'zod';
import { judgeCommand } from '../permissions/shell.js';
import {
  CommandRefused,
  commandEnv,
  executeCommand,
  type ExecuteResult,
} from './command-process.js';
import { makeRoots } from './fs-roots.js';
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
    /**
     * `auto`: under bubblewrap when the system has a usable one; `required`: no command runs
     * without it; `off`: commands run unconfined (the judge's allowlist still holds).
     */
    sandbox: z.enum(['auto', 'required', 'off']).default('auto'),
    /**
     * Network for confined commands: `never`; or `approved`: a command the owner was asked about
     * and approved has it, one judged safe (read-only, run unasked) never does.
     */
    network: z.enum(['never', 'approved']).default('approved'),
  })
  .refine((c) => c.defaultTimeoutS <= c.maxTimeoutS, {
    message: 'defaultTimeoutS must not be above maxTimeoutS',
    path: ['defaultTimeoutS'],
  })
  .prefault({});

export type RunCommandConfig = z.output<typeof runCommandConfig>;

export interface RunCommandDeps {
  config?: RunCommandConfig;
  /** The environment the command's is made from (only allowlisted names pass: command-process.ts). */
  env: Record<string, string | undefined>;
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
  return (await locateCwd(cwd, workspace, roots))?.dir;
}

/** `resolveCwd`, with the real path of the root it lies in (the folder a sandbox may write). */
export async function locateCwd(
  cwd: string | undefined,
  workspace: string,
  roots: readonly string[],
): Promise<{ dir: string; root: string } | undefined> {
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
    if (rel === '' || (!rel.startsWith('..') && !isAbsolute(rel)))
      return { dir: real, root: realRoot };
  }
  return undefined;
}

/** `run_command`: one command line in the workspace, killed with its children at the timeout. */
export function createRunCommandTool(deps: RunCommandDeps) {
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
      const where = await locateCwd(args.cwd, ctx.workspace, config.roots);
      if (!where)
        return {
          content: `refused: cwd ${args.cwd ?? '.'} is not a directory inside the workspace or an allowed root`,
          isError: true,
        };
      const { real: roots } = await makeRoots(ctx.workspace, config.roots);
      const judgement = await judgeCommand(args.command, { cwd: where.dir, roots });
      if (!judgement.commands) return { content: `refused: ${judgement.reason}`, isError: true };
      const timeoutS = args.timeout_s ?? config.defaultTimeoutS;
      // A command run unasked is read-only and gets no network: what it read stays here. Nor
      // does one the turn's trust runs offline (allowed after foreign content, not asked).
      const network =
        ctx.network !== false && judgement.verdict !== 'safe' && config.network === 'approved';
      let result: ExecuteResult;
      try {
        result = await executeCommand({
          command: args.command,
          judgement,
          cwd: where.dir,
          timeoutMs: timeoutS * 1000,
          signal: ctx.signal,
          env: commandEnv(deps.env),
          maxOutputChars: config.maxOutputChars,
          writable: [...new Set([roots[0] ?? where.root, where.root])],
          network,
          sandbox: config.sandbox,
        });
      } catch (err) {
        if (err instanceof CommandRefused) return { content: err.message, isError: true };
        throw err;
      }
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
