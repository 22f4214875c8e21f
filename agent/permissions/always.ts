import { isAbsolute, relative, resolve } from 'node:path';
import { commandRulePattern, isInterpreter, readApprovalRule } from '../../src/index.js';

/**
 * What answering "always" stores: the exact call, never a family of calls. A command's rule is
 * its canonical words (program, subcommand, every option with its value, the operands as they
 * are) and the directory it runs in; a file's is its path; a message's its recipient; an MCP
 * tool's its name (any input, and the prompt says so). A command with an option that runs
 * another program, changes which repository or config is used, or forces or deletes, is never
 * stored at all: it is approved once or not.
 */

const PLAIN_PROGRAM = /^[A-Za-z0-9][A-Za-z0-9._+-]*$/;

/**
 * The longest rule, as the owner reads it (`tool: what it matches`), that is offered: the prompt
 * shows it whole, and one too long to show whole is not offered.
 */
const RULE_SHOWN_MAX = 400;

/**
 * Short options that take no value and whose order never matters, for programs where that is
 * certain: `-rf`, `-fr` and `-r -f` are one rule. Options whose last one wins (rm's -f and -i,
 * cp's -L and -P) are left out, so they keep their order.
 */
const NO_VALUE_FLAGS: Record<string, string> = {
  rm: 'rRdvf',
  mkdir: 'pv',
  cp: 'rRavpuxf',
  touch: 'acm',
  chmod: 'Rvcf',
  ln: 'svf',
};

/**
 * Options of any program that run another program or a shell (tar --to-command, rsync --rsh,
 * zip --unzip-command, git --upload-pack) or point git elsewhere: a long option that is one of
 * these or a prefix of one (getopt_long and git take abbreviations).
 */
const RUNS_PROGRAMS = [
  '--exec',
  '--exec-path',
  '--rsh',
  '--rsync-path',
  '--to-command',
  '--checkpoint-action',
  '--use-compress-program',
  '--compress-program',
  '--info-script',
  '--new-volume-script',
  '--unzip-command',
  '--upload-pack',
  '--receive-pack',
  '--git-dir',
  '--work-tree',
  '--config-env',
  '--config',
  '--template',
  '--proxy-command',
  '--editor',
  '--pager',
  '--shell',
  '--command',
  '--extcmd',
  '--open-files-in-pager',
];

/** ssh options that run a command, wherever they hide in a word (`-oProxyCommand=…`). */
const SSH_COMMANDS = /(proxy|local|remote|knownhosts)command|proxyjump|permitlocalcommand/i;

/** Short options, per program, that run a program or take a config that can. */
const SHORT_RUNS: Record<string, string> = {
  rsync: 'e',
  tar: 'IF',
  zip: 'T',
  scp: 'SoFJ',
  sftp: 'SoFJ',
};

/** Global git options that change nothing about what runs; any other before the subcommand does. */
const GIT_GLOBALS = new Set([
  '--no-pager',
  '-P',
  '-p',
  '--paginate',
  '--no-replace-objects',
  '--literal-pathspecs',
  '--glob-pathspecs',
  '--noglob-pathspecs',
  '--icase-pathspecs',
  '--no-optional-locks',
  '--no-lazy-fetch',
  '--no-advice',
  '--version',
  '--help',
]);

/**
 * git's own commands: another word is an alias, which the repository's config can point at any
 * program, so it is never stored.
 */
const GIT_COMMANDS = new Set(
  (
    'add am apply archive bisect blame branch bundle cat-file checkout cherry cherry-pick clean ' +
    'clone commit commit-tree config count-objects describe diff diff-files diff-index diff-tree ' +
    'fetch for-each-ref format-patch fsck gc grep hash-object help init log ls-files ls-remote ' +
    'ls-tree maintenance merge merge-base mktag mktree mv name-rev notes pull push range-diff ' +
    'read-tree rebase reflog remote repack replace reset restore rev-list rev-parse revert rm ' +
    'shortlog show show-branch show-ref sparse-checkout stash status submodule switch symbolic-ref ' +
    'tag update-index update-ref verify-commit verify-tag whatchanged worktree write-tree'
  ).split(' '),
);

/** git push options that force, delete or mirror: never approved for good. */
const PUSH_DANGER = [
  '--force',
  '--force-with-lease',
  '--force-if-includes',
  '--mirror',
  '--delete',
  '--prune',
];

/** A long option (`--name` or `--name=value`) that is `full` or an abbreviation of it. */
function abbreviates(word: string, full: string): boolean {
  const name = word.split('=')[0]!;
  return name.length >= 3 && full.startsWith(name);
}

/** The option words of a command: every word up to `--` that starts with `-` (not `-` alone). */
function optionWords(words: readonly string[]): string[] {
  const end = words.indexOf('--');
  return (end < 0 ? words : words.slice(0, end)).filter((w) => w.startsWith('-') && w !== '-');
}

/** Whether a short option cluster (`-fu`, `-ni`) holds any of these letters. */
const clusterHas = (word: string, letters: string) =>
  /^-[^-]/.test(word) && [...word.slice(1)].some((l) => letters.includes(l));

/** Why a command can never be allowed always, or undefined when its exact words may be. */
export function neverAlways(argv: readonly string[]): string | undefined {
  const program = argv[0];
  if (!program || !PLAIN_PROGRAM.test(program)) return 'its program is not a plain name';
  if (isInterpreter(program)) return `${program} runs whatever it is given`;
  const args = argv.slice(1);
  const options = optionWords(args);
  for (const word of options) {
    const runs = RUNS_PROGRAMS.find((full) => word.startsWith('--') && abbreviates(word, full));
    if (runs) return `${runs} runs another program or points elsewhere`;
  }
  if (args.some((w) => SSH_COMMANDS.test(w))) return 'an ssh option runs a command';
  const short = Object.hasOwn(SHORT_RUNS, program) ? SHORT_RUNS[program]! : '';
  if (short && options.some((w) => clusterHas(w, short)))
    return `an option of ${program} runs another program`;
  if (program === 'tar' && args[0] && !args[0].startsWith('-') && /[IF]/.test(args[0]))
    return 'an option of tar runs another program';
  if (program === 'sed' && options.some((w) => clusterHas(w, 'i') || abbreviates(w, '--in-place')))
    return 'sed -i rewrites files, and its script can run commands';
  if (program === 'git') return gitNeverAlways(args);
  return undefined;
}

function gitNeverAlways(args: readonly string[]): string | undefined {
  let i = 0;
  while (i < args.length && args[i]!.startsWith('-')) {
    if (!GIT_GLOBALS.has(args[i]!))
      return `git ${args[i]} (before the subcommand) changes which repository, config or program runs`;
    i++;
  }
  const sub = args[i];
  if (sub === undefined) return undefined;
  if (!GIT_COMMANDS.has(sub)) return `git ${sub} is not one of git's own commands (an alias?)`;
  const rest = args.slice(i + 1);
  const options = optionWords(rest);
  const end = rest.indexOf('--');
  const operands =
    end < 0
      ? rest.filter((w) => !w.startsWith('-'))
      : [...rest.slice(0, end).filter((w) => !w.startsWith('-')), ...rest.slice(end + 1)];
  if (rest.some((w) => w.includes('::'))) return 'a git transport (`ext::`) runs a program';
  if (operands.some((w) => w.startsWith('+') || w.startsWith(':')))
    return 'a refspec starting with + forces and one starting with : deletes';
  switch (sub) {
    case 'push':
      if (options.some((w) => clusterHas(w, 'fd'))) return 'git push -f forces and -d deletes';
      if (
        options.some((w) => PUSH_DANGER.some((full) => w.startsWith('--') && abbreviates(w, full)))
      )
        return 'git push --force, --mirror, --delete and --prune rewrite or delete remote branches';
      if (operands.some((w) => w.includes(':')))
        return 'a refspec with : names what is written (or deleted) on the remote';
      return undefined;
    case 'clone':
      return options.some((w) => clusterHas(w, 'uc'))
        ? 'git clone -u runs a program and -c sets config'
        : undefined;
    case 'rebase':
      return options.some((w) => clusterHas(w, 'x')) ? 'git rebase -x runs commands' : undefined;
    case 'grep':
      return options.some((w) => clusterHas(w, 'O')) ? 'git grep -O runs a program' : undefined;
    case 'submodule':
      return operands.includes('foreach') ? 'git submodule foreach runs commands' : undefined;
    case 'bisect':
      return operands.includes('run') ? 'git bisect run runs commands' : undefined;
    default:
      return undefined;
  }
}

/**
 * A command's words with spellings that cannot differ in meaning made one: for the programs in
 * NO_VALUE_FLAGS, when every option is one of their known flags, clusters are split and each run
 * of flags sorted and kept once (`rm -rf x`, `rm -fr x` and `rm -r -f x` are all `rm -f -r x`).
 * Anything else stays word for word.
 */
export function canonicalArgv(argv: readonly string[]): string[] {
  const program = argv[0] ?? '';
  const flags = Object.hasOwn(NO_VALUE_FLAGS, program) ? NO_VALUE_FLAGS[program]! : '';
  const args = argv.slice(1);
  const isFlags = (w: string) =>
    /^-[A-Za-z]+$/.test(w) && [...w.slice(1)].every((l) => flags.includes(l));
  if (!flags || !optionWords(args).every(isFlags)) return [...argv];
  const out = [program];
  let run = new Set<string>();
  const flush = () => {
    out.push(...[...run].sort());
    run = new Set();
  };
  let ended = false;
  for (const word of args) {
    if (!ended && isFlags(word)) {
      for (const letter of word.slice(1)) run.add(`-${letter}`);
      continue;
    }
    flush();
    if (word === '--') ended = true;
    out.push(word);
  }
  flush();
  return out;
}

/**
 * Where a path given to a tool points, as a rule and the prompt name it: relative to the
 * workspace when inside it (`.` for the workspace), else absolute; lexically normalised.
 */
export function workspacePath(path: string, workspace: string): string {
  const full = resolve(workspace, path);
  const rel = relative(resolve(workspace), full);
  if (rel === '') return '.';
  return rel.startsWith('..') || isAbsolute(rel) ? full : rel;
}

/** A rule the owner can read whole in the prompt; undefined for one too long to show uncut. */
function offered(tool: string, pattern: string): string | undefined {
  const read = readApprovalRule(tool, pattern);
  return read.active && tool.length + 2 + read.matches.length <= RULE_SHOWN_MAX
    ? pattern
    : undefined;
}

/**
 * The "always" pattern of one simple command run in `cwd` (relative to the workspace, `.` for
 * it): its canonical words, exactly; undefined when the command can never be allowed always.
 */
export function alwaysPatternOf(argv: readonly string[], cwd = '.'): string | undefined {
  if (neverAlways(argv) !== undefined) return undefined;
  return offered('run_command', commandRulePattern(canonicalArgv(argv), cwd));
}

/** Whether a stored pattern allows this command in `cwd`: only the very same canonical command. */
export function ruleMatches(pattern: string, argv: readonly string[], cwd = '.'): boolean {
  const own = alwaysPatternOf(argv, cwd);
  return own !== undefined && own === pattern;
}

/**
 * The "always" pattern of a call of another tool: write_file its path, send_message its
 * recipient, an MCP tool its name (any input); undefined for every other tool.
 */
export function toolPatternOf(tool: string, input: unknown, workspace: string): string | undefined {
  const args = (input ?? {}) as Record<string, unknown>;
  if (tool === 'write_file' && typeof args.path === 'string' && args.path !== '')
    return offered(tool, `path ${workspacePath(args.path, workspace)}`);
  if (tool === 'send_message' && typeof args.to === 'string' && args.to.trim() !== '')
    return offered(tool, `to ${args.to.trim()}`);
  if (/^mcp__[^*]+$/.test(tool)) return offered(tool, tool);
  return undefined;
}
