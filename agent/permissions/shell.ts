import { realpath } from 'node:fs/promises';
import { placeReason, type Place } from './programs/paths.js';
import { argvToRun, judgeArgv } from './safe-commands.js';
import { extractCommands, serialiseCommands } from './shell-parse.js';

export interface CommandJudgement {
  /** `safe`: every command in it is on the safe list with safe arguments; else `ask`. */
  verdict: 'safe' | 'ask';
  /** Why it is safe, or the first reason it is not. */
  reason: string;
  /**
   * The commands as argv lists, when the parse could be classified whole (plain words, lists and
   * pipelines, output only to /dev/null); undefined when it could not, and then nothing may run.
   * Each is the argv that runs: `sed` has `--sandbox` and `rg` has `--no-config` put first.
   */
  commands: Array<{ argv: string[] }> | undefined;
  /** One command with no redirection: its argv runs as it is, without a shell. */
  simple: boolean;
  /**
   * With `commands`: the line to give `sh -c` instead of the model's text, made from the judged
   * argv lists (every argument single-quoted, `'\''` for a quote), the operators between them and
   * their /dev/null and descriptor redirections, e.g. `cat 'README.md' | head '-20' 2>/dev/null`.
   * sh reads it back to exactly `commands`.
   */
  line?: string;
}

export interface JudgeOptions {
  /** The real path of the directory the command runs in. */
  cwd: string;
  /** Real paths of the folders a command's path operands may name (the workspace first). */
  roots: readonly string[];
  /** Longer commands are not judged safe (default 10,000 characters). */
  maxLength?: number;
}

const MAX_COMMANDS = 64;

/**
 * Judge a command line on a bash parse (tree-sitter-bash): every command of every list and
 * pipeline must be on the safe list with safe arguments, and every file it names must lie inside
 * a root; anything the parse shows that is not understood (substitutions, expansions,
 * assignments, here-docs, redirections that write, control flow, parse errors) makes it `ask`.
 * Loads the grammar on first use.
 */
export async function judgeCommand(
  command: string,
  options: JudgeOptions,
): Promise<CommandJudgement> {
  const ask = (reason: string): CommandJudgement => ({
    verdict: 'ask',
    reason,
    commands: undefined,
    simple: false,
  });
  const maxLength = options.maxLength ?? 10_000;
  if (command.length > maxLength) return ask(`the command is longer than ${maxLength} characters`);
  if (command.trim() === '') return ask('the command is empty');
  if (command.includes('\0')) return ask('the command contains a NUL character');
  if (command.includes('\r')) return ask('the command contains a carriage return');

  const parsed = await extractCommands(command);
  if (!parsed.ok) return ask(parsed.reason);
  if (parsed.commands.length > MAX_COMMANDS)
    return ask(`more than ${MAX_COMMANDS} commands in one line`);
  const commands = parsed.commands.map((c) => ({ ...c, argv: argvToRun(c.argv) }));
  const judged = {
    commands: commands.map((c) => ({ argv: c.argv })),
    simple: commands.length === 1 && commands[0]?.redirects.length === 0,
    line: serialiseCommands(commands, parsed.operators),
  };
  const place = await realPlace(options);
  if (typeof place === 'string') return { ...judged, verdict: 'ask', reason: place };
  for (const { argv } of commands) {
    const reason = await judgeArgv(argv, place);
    if (reason !== undefined) return { ...judged, verdict: 'ask', reason };
  }
  const names = [...new Set(commands.map((c) => c.argv[0]))].join(', ');
  return { ...judged, verdict: 'safe', reason: `read-only: ${names}` };
}

/** The real cwd and roots (a root that does not exist holds nothing); the cwd must be inside. */
async function realPlace(options: JudgeOptions): Promise<Place | string> {
  const roots: string[] = [];
  for (const root of options.roots) {
    const real = await realpath(root).catch(() => undefined);
    if (real !== undefined) roots.push(real);
  }
  const cwd = await realpath(options.cwd).catch(() => undefined);
  if (cwd === undefined) return `the directory ${options.cwd} does not exist`;
  const reason = placeReason(cwd, roots, cwd);
  return reason ? `the command would run where it may not read: ${reason}` : { cwd, roots };
}
