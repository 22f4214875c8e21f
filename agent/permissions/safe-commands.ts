/**
 * Which programs may run without asking, and with which arguments. A checker returns undefined
 * when the argv is safe, else the reason it is not. Programs absent from the list are not safe;
 * wrappers (programs that run another program) are named so the reason says so.
 */
type Check = (args: string[]) => string | undefined;

/** Programs that run other programs or code: never transparent, never safe. */
const WRAPPERS = new Set([
  'env', 'xargs', 'nice', 'nohup', 'timeout', 'exec', 'command', 'builtin', 'sudo', 'doas',
  'su', 'sh', 'bash', 'zsh', 'dash', 'ksh', 'fish', 'python', 'python3', 'node', 'deno', 'bun',
  'perl', 'ruby', 'php', 'lua', 'awk', 'gawk', 'mawk', 'nawk', 'eval', 'source', '.', 'time',
  'watch', 'stdbuf', 'setsid', 'chroot', 'unshare', 'flock', 'strace', 'script', 'parallel',
]); // prettier-ignore

const anyArgs: Check = () => undefined;

/**
 * getopt_long and git accept any unambiguous prefix of a long option (`--outp` is `--output`),
 * so a prefix of a refused option is refused too.
 */
function matchesLong(arg: string, long: readonly string[]): boolean {
  const name = arg.split('=')[0] ?? arg;
  return long.some((l) => l === name || (name.length >= 3 && l.startsWith(name)));
}

/** Short options are clustered (`-la`); long ones may carry `=value`. */
function hasOption(args: string[], short: string, long: string[]): string | undefined {
  for (const arg of args) {
    if (arg === '--') return undefined;
    if (arg.startsWith('--')) {
      if (matchesLong(arg, long)) return arg;
    } else if (arg.startsWith('-') && arg.length > 1) {
      if ([...short].some((c) => arg.slice(1).includes(c))) return arg;
    }
  }
  return undefined;
}

function without(short: string, long: string[]): Check {
  return (args) => {
    const found = hasOption(args, short, long);
    return found === undefined ? undefined : `the option \`${found}\` can write or run programs`;
  };
}

const positional = (args: string[]) => args.filter((a) => !a.startsWith('-') || a === '-');

const FIND_ACTIONS = new Set([
  '-exec', '-execdir', '-ok', '-okdir', '-delete', '-fprint', '-fprint0', '-fprintf', '-fls',
]); // prettier-ignore

/** sed: no in-place edit, no script file, and each script one print/delete or `s` command. */
const SED_SCRIPT =
  /^(?:(?:[0-9]+|\$)(?:,(?:[0-9]+|\$))?)?[pd]$|^s([/|#,:])(?:(?!\1)[^\\\n]|\\.)*\1(?:(?!\1)[^\\\n]|\\.)*\1[gpiI0-9]*$/;

function sed(args: string[]): string | undefined {
  const bad = hasOption(args, 'ifs', ['--in-place', '--file', '--separate']);
  if (bad) return `the option \`${bad}\` can write files or read a script`;
  // A script must come from a lone `-e`, `--expression` or the first operand, where it is read.
  const hidden = args.find(
    (a) =>
      (/^-[^-]/.test(a) && a.length > 2 && a.includes('e')) ||
      (a.startsWith('--') &&
        a !== '--expression' &&
        !a.startsWith('--expression=') &&
        matchesLong(a, ['--expression'])),
  );
  if (hidden) return `the option \`${hidden}\` hides a script from the judge`;
  const scripts: string[] = [];
  let scriptGiven = false;
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '-e' || arg === '--expression') {
      scripts.push(args[++i] ?? '');
      scriptGiven = true;
    } else if (arg.startsWith('--expression=')) {
      scripts.push(arg.slice('--expression='.length));
      scriptGiven = true;
    } else if (!arg.startsWith('-')) rest.push(arg);
  }
  if (!scriptGiven && rest[0] !== undefined) scripts.push(rest[0]);
  if (scripts.length === 0) return 'sed without a script';
  const unsafe = scripts.find((s) => !SED_SCRIPT.test(s));
  return unsafe === undefined
    ? undefined
    : `the sed script \`${unsafe}\` is not a plain print, delete or substitution`;
}

function find(args: string[]): string | undefined {
  const action = args.find((a) => FIND_ACTIONS.has(a));
  return action ? `find \`${action}\` runs programs, deletes or writes files` : undefined;
}

function rg(args: string[]): string | undefined {
  const bad = hasOption(args, 'z', ['--pre', '--pre-glob', '--search-zip', '--hostname-bin']);
  return bad ? `the option \`${bad}\` makes rg run other programs` : undefined;
}

const GIT_GLOBAL_OK = new Set(['--no-pager', '--no-optional-locks', '--literal-pathspecs']);
const GIT_READ = new Set([
  'status', 'log', 'diff', 'show', 'rev-parse', 'ls-files', 'ls-tree', 'blame', 'shortlog',
  'describe', 'grep', 'cat-file', 'rev-list', 'merge-base', 'show-ref', 'diff-tree', 'count-objects',
]); // prettier-ignore
const GIT_BAD_LONG = [
  '--output', '--exec', '--ext-diff', '--textconv', '--open-files-in-pager', '--filters',
  '--upload-pack', '--receive-pack', '--config-env', '--exec-path', '--paginate',
]; // prettier-ignore
const GIT_BRANCH_LIST = new Set([
  '-a', '-r', '-v', '-vv', '-l', '--all', '--remotes', '--verbose', '--list', '--show-current',
  '--no-color', '--color', '--merged', '--no-merged', '--contains', '--no-contains',
]); // prettier-ignore

function git(args: string[]): string | undefined {
  let i = 0;
  while (args[i]?.startsWith('-')) {
    if (!GIT_GLOBAL_OK.has(args[i] ?? ''))
      return `the git option \`${args[i]}\` (before the subcommand) can run programs or change where git works`;
    i++;
  }
  const sub = args[i];
  const rest = args.slice(i + 1);
  if (sub === undefined) return 'git without a subcommand';
  for (const arg of rest) {
    // `--text` is git's own option, an exact match, not an abbreviation of `--textconv`.
    if (arg.startsWith('--') && arg !== '--text' && matchesLong(arg, GIT_BAD_LONG))
      return `the option \`${arg}\` can write files or run programs`;
  }
  if (sub === 'grep' && hasOption(rest, 'O', [])) return '`git grep -O` opens a pager program';
  if (sub === 'branch') {
    const listing = rest.includes('--list') || rest.includes('-l');
    const bad = rest.find((a) => (a.startsWith('-') ? !GIT_BRANCH_LIST.has(a) : !listing));
    return bad === undefined ? undefined : `\`git branch ${bad}\` changes branches`;
  }
  if (sub === 'remote') {
    return rest.every((a) => a === '-v' || a === '--verbose') ? undefined : '`git remote` changes';
  }
  return GIT_READ.has(sub) ? undefined : `\`git ${sub}\` is not a read-only git subcommand`;
}

export const SAFE_PROGRAMS: Record<string, Check> = {
  ls: anyArgs,
  cat: anyArgs,
  head: anyArgs,
  tail: anyArgs,
  wc: anyArgs,
  grep: anyArgs,
  egrep: anyArgs,
  fgrep: anyArgs,
  rg,
  find,
  git,
  sed,
  echo: anyArgs,
  printf: without('v', []),
  pwd: anyArgs,
  date: without('s', ['--set']),
  which: anyArgs,
  sort: without('o', ['--output', '--compress-program']),
  uniq: (args) => (positional(args).length > 1 ? '`uniq IN OUT` writes OUT' : undefined),
  cut: anyArgs,
  tr: anyArgs,
  diff: anyArgs,
  du: anyArgs,
  df: anyArgs,
  stat: anyArgs,
  file: without('C', ['--compile']),
  jq: anyArgs,
  tree: without('o', ['--output']),
  basename: anyArgs,
  dirname: anyArgs,
  realpath: anyArgs,
  true: anyArgs,
  false: anyArgs,
};

/** Undefined when the argv may run without asking, else why not. */
export function judgeArgv(argv: readonly string[]): string | undefined {
  const [program, ...args] = argv;
  if (program === undefined) return 'no command';
  if (WRAPPERS.has(program))
    return `\`${program}\` runs another program or code, so it is not judged safe`;
  const check = Object.hasOwn(SAFE_PROGRAMS, program) ? SAFE_PROGRAMS[program] : undefined;
  if (!check) return `\`${program}\` is not on the safe list`;
  return check(args);
}
