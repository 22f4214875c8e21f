import { getopt, type OptionTable, type Parsed } from './getopt.js';

/**
 * What a program's check finds in its arguments: the reason it is not safe, or what must hold
 * of the file system for it to be (the paths it reads, checked by paths.ts).
 */
export type Outcome = string | Needs;

export interface Needs {
  /** Words naming files or folders the program reads: each must resolve inside a root. */
  paths: string[];
  /** Of those, ones that must not be directories (the program would read what is inside). */
  files?: string[];
  /** The program finds a git repository from its cwd: that repository must lie inside a root. */
  gitRepository?: boolean;
}

export interface Program {
  /** Judges the arguments (the words after the program name, `prefix` included). */
  check(args: readonly string[]): Outcome;
  /**
   * Words put before the model's arguments whatever they are, so that what runs cannot do what
   * the check may have missed (`sed --sandbox`: no e, r or w commands).
   */
  prefix?: readonly string[];
  /** Like `prefix`, where the words go elsewhere than first (git's after its subcommand). */
  rewrite?(args: readonly string[]): string[];
}

export const NEEDS_NOTHING: Needs = { paths: [] };

/** Operands that name files: all of them but `-`, which is standard input. */
export const fileOperands = (operands: readonly string[]): string[] =>
  operands.filter((o) => o !== '-');

/**
 * A getopt_long program: the argv is read both as GNU reads it (options and operands mixed) and
 * as it reads it with POSIXLY_CORRECT set (the first operand ends the options), and both readings
 * must be safe, so an environment the judge does not see cannot change the verdict.
 */
export function getoptProgram(
  table: OptionTable,
  decide: (parsed: Parsed) => Outcome,
  prefix?: readonly string[],
): Program {
  return {
    prefix,
    check(args) {
      const needs: Needs[] = [];
      for (const permute of [true, false]) {
        const parsed = getopt(args, table, permute);
        const outcome = typeof parsed === 'string' ? parsed : decide(parsed);
        if (typeof outcome === 'string') return outcome;
        needs.push(outcome);
      }
      return mergeNeeds(needs);
    },
  };
}

export function mergeNeeds(all: readonly Needs[]): Needs {
  return {
    paths: [...new Set(all.flatMap((n) => n.paths))],
    files: [...new Set(all.flatMap((n) => n.files ?? []))],
    gitRepository: all.some((n) => n.gitRepository),
  };
}

/** Paths operands plus the values of options that name files. */
export function pathsOf(parsed: Parsed, fileOptions: readonly string[] = []): string[] {
  const values = parsed.options
    .filter((o) => fileOptions.includes(o.id) && o.value !== undefined && o.value !== '-')
    .map((o) => o.value as string);
  return [...values, ...fileOperands(parsed.operands)];
}
