import { judgeArgv } from './safe-commands.js';
import { extractCommands } from './shell-parse.js';

export interface CommandJudgement {
  /** `safe`: every command in it is on the safe list with safe arguments; else `ask`. */
  verdict: 'safe' | 'ask';
  /** Why it is safe, or the first reason it is not. */
  reason: string;
  /**
   * The commands as argv lists, when the parse could be classified whole (plain words, lists and
   * pipelines, output only to /dev/null); undefined when it could not, and then nothing may run.
   */
  commands: Array<{ argv: string[] }> | undefined;
  /** One command with no redirection: its argv runs as it is, without a shell. */
  simple: boolean;
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
 * pipeline must be on the safe list with safe arguments; anything the parse shows that is not
 * understood (substitutions, expansions, assignments, here-docs, redirections that write,
 * control flow, parse errors) makes it `ask`. Loads the grammar on first use.
 */
export async function judgeCommand(
  command: string,
  options: JudgeOptions,
): Promise<CommandJudgement> {
  const ask = (reason: string, commands?: string[][]): CommandJudgement => ({
    verdict: 'ask',
    reason,
    commands: commands?.map((argv) => ({ argv })),
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
  const simple = parsed.commands.length === 1 && !parsed.redirects && !parsed.separators;
  for (const argv of parsed.commands) {
    const reason = judgeArgv(argv);
    if (reason !== undefined) return { ...ask(reason, parsed.commands), simple };
  }
  const names = [...new Set(parsed.commands.map((argv) => argv[0]))].join(', ');
  return {
    verdict: 'safe',
    reason: `read-only: ${names}`,
    commands: parsed.commands.map((argv) => ({ argv })),
    simple,
  };
}
