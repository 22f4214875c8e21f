import { COREUTILS } from './programs/coreutils.js';
import { git } from './programs/git.js';
import { jq } from './programs/jq.js';
import { confinePath, gitRepositoryReason, notDirectory, type Place } from './programs/paths.js';
import type { Program } from './programs/program.js';
import { SEARCH } from './programs/search.js';
import { sed } from './programs/sed.js';

/**
 * Which programs may run without asking, and with which arguments: an allowlist. Each program
 * declares the options it may take, with their arity, and which operands name files; its argv is
 * read as the program itself reads it (programs/getopt.ts for the GNU ones), anything not
 * declared makes the command not safe, and every file it would read must resolve inside a root
 * (programs/paths.ts). Programs absent from the list are not safe; wrappers (programs that run
 * another program) are named so the reason says so.
 */

/** Programs that run other programs or code: never transparent, never safe. */
const WRAPPERS = new Set([
  'env', 'xargs', 'nice', 'nohup', 'timeout', 'exec', 'command', 'builtin', 'sudo', 'doas',
  'su', 'sh', 'bash', 'zsh', 'dash', 'ksh', 'fish', 'python', 'python3', 'node', 'deno', 'bun',
  'perl', 'ruby', 'php', 'lua', 'awk', 'gawk', 'mawk', 'nawk', 'eval', 'source', '.', 'time',
  'watch', 'stdbuf', 'setsid', 'chroot', 'unshare', 'flock', 'strace', 'script', 'parallel',
]); // prettier-ignore

export const SAFE_PROGRAMS: Readonly<Record<string, Program>> = {
  ...COREUTILS,
  ...SEARCH,
  sed,
  jq,
  git,
};

function programOf(name: string | undefined): Program | undefined {
  return name !== undefined && Object.hasOwn(SAFE_PROGRAMS, name) ? SAFE_PROGRAMS[name] : undefined;
}

/**
 * The argv that runs: a program's fixed words (`sed --sandbox`, `rg --no-config`) put in front of
 * the model's arguments, whatever the verdict, unless they are there already.
 */
export function argvToRun(argv: readonly string[]): string[] {
  const [name, ...args] = argv;
  const program = programOf(name);
  if (name !== undefined && program?.rewrite) return [name, ...program.rewrite(args)];
  const prefix = program?.prefix ?? [];
  if (name === undefined || prefix.every((word, i) => args[i] === word)) return [...argv];
  return [name, ...prefix, ...args];
}

/** Undefined when the argv may run in `place` without asking, else why not. */
export async function judgeArgv(
  argv: readonly string[],
  place: Place,
): Promise<string | undefined> {
  const [name, ...args] = argv;
  if (name === undefined) return 'no command';
  if (WRAPPERS.has(name))
    return `\`${name}\` runs another program or code, so it is not judged safe`;
  const program = programOf(name);
  if (!program) return `\`${name}\` is not on the safe list`;
  const needs = program.check(args);
  if (typeof needs === 'string') return `${name}: ${needs}`;
  for (const path of needs.paths) {
    const reason = await confinePath(path, place);
    if (reason) return `${name}: ${reason}`;
  }
  for (const path of needs.files ?? []) {
    const reason = await notDirectory(path, place);
    if (reason) return `${name}: ${reason}`;
  }
  if (needs.gitRepository) {
    const reason = await gitRepositoryReason(place);
    if (reason) return `${name}: ${reason}`;
  }
  return undefined;
}
