import { options, type GivenOption, type OptionTable } from './getopt.js';
import type { Needs, Program } from './program.js';

/**
 * git: one read-only subcommand with options from its list. Before the subcommand only options
 * that change nothing of where git works or what it runs (`-C`, `-c`, `--git-dir`, `--work-tree`,
 * `--exec-path`, `--config-env`, `--paginate` are never safe). Options that write (`--output`),
 * run programs (`--ext-diff`, `--textconv`, `grep -O`), read other files (`-O`, `--contents`,
 * `-L`, `blame -S`, `--exclude-from`), compare any two files (`diff --no-index`) or follow
 * submodules into repositories that may lie elsewhere (`--recurse-submodules`, `--submodule`) are
 * not on any list. The repository git finds from its cwd must lie inside a root (paths.ts), and every word
 * that is not an option is confined like a path: a revision such as `HEAD~1` names nothing that
 * exists and is judged by the folder it would be in, while `/etc/passwd` is refused (outside a
 * repository `git diff A B` compares any two files).
 *
 * What git runs because of the repository's own config (diff drivers, pagers, fsmonitor, hooks,
 * signing programs) is turned off by the environment the command runs in, not here.
 */

const GLOBAL = new Set([
  '--no-pager', '-P', '--no-optional-locks', '--literal-pathspecs', '--no-replace-objects',
]); // prettier-ignore

/** Options of the diff machinery (diff, log -p, show, diff-tree). */
const DIFF = [
  '-p -u --patch', '-s --no-patch', '--raw', '--patch-with-raw', '--patch-with-stat',
  '--stat[=]', '--stat-width=', '--stat-name-width=', '--stat-count=', '--stat-graph-width=',
  '--numstat', '--shortstat', '--dirstat[=]', '--cumulative', '--summary', '--name-only',
  '--name-status', '--compact-summary', '--full-index', '--binary', '--abbrev[=]',
  '--color[=]', '--no-color', '--color-words[=]', '--word-diff[=]', '--word-diff-regex=',
  '--color-moved[=]', '--no-color-moved', '--color-moved-ws=', '--no-renames',
  '-M[=] --find-renames[=]', '-C[=] --find-copies[=]', '--find-copies-harder',
  '-B[=] --break-rewrites[=]', '-D --irreversible-delete', '-l=', '-R', '-a --text',
  '--ignore-cr-at-eol', '--ignore-space-at-eol', '-b --ignore-space-change',
  '-w --ignore-all-space', '--ignore-blank-lines', '--minimal', '--patience', '--histogram',
  '--diff-algorithm=', '--anchored=', '--indent-heuristic', '--no-indent-heuristic',
  '-W --function-context', '--exit-code', '--quiet', '--no-ext-diff', '--no-textconv',
  '--ignore-submodules[=]', '--src-prefix=', '--dst-prefix=', '--no-prefix',
  '--line-prefix=', '--relative[=]', '--no-relative', '-U[=] --unified=',
  '--inter-hunk-context=', '--diff-filter=', '-S=', '-G=', '--pickaxe-all', '--pickaxe-regex',
  '--output-indicator-new=', '--output-indicator-old=', '--output-indicator-context=', '-z',
  '--check', '--ita-invisible-in-index', '--ws-error-highlight=',
]; // prettier-ignore

/** Options of the revision walk (log, show, rev-list, shortlog). */
const REVISIONS = [
  '-n= --max-count=', '--skip=', '--since= --after=', '--until= --before=', '--author=',
  '--committer=', '--grep=', '--all-match', '--invert-grep', '-i --regexp-ignore-case',
  '--basic-regexp', '-E --extended-regexp', '-F --fixed-strings', '--perl-regexp', '--merges',
  '--no-merges', '--min-parents=', '--max-parents=', '--no-min-parents', '--no-max-parents',
  '--first-parent', '--all', '--branches[=]', '--tags[=]', '--remotes[=]', '--glob=',
  '--exclude=', '--reflog', '--single-worktree', '--ignore-missing', '-g --walk-reflogs',
  '--boundary', '--simplify-by-decoration', '--full-history', '--dense', '--sparse',
  '--simplify-merges', '--ancestry-path[=]', '--show-pulls', '--topo-order', '--date-order',
  '--author-date-order', '--reverse', '--no-walk[=]', '--do-walk', '--cherry-mark',
  '--cherry-pick', '--left-only', '--right-only', '--cherry', '--left-right', '--graph',
  '--oneline', '--pretty[=]', '--format=', '--abbrev-commit', '--no-abbrev-commit',
  '--encoding=', '--expand-tabs[=]', '--no-expand-tabs', '--notes[=]', '--no-notes',
  '--relative-date', '--date=', '--parents', '--children', '--decorate[=]', '--no-decorate',
  '--decorate-refs=', '--decorate-refs-exclude=', '--source', '--use-mailmap', '--mailmap',
  '--no-mailmap', '--log-size', '--follow', '-m', '-c', '--cc', '--dd', '--diff-merges=',
  '--no-diff-merges', '--combined-all-paths', '-t', '-r', '--root', '--count',
]; // prettier-ignore

interface Subcommand {
  table: OptionTable;
  /** `-5` is a count (log) or context (grep). */
  numbers?: boolean;
  /** What else must hold of its options and operands. */
  check?: (given: GivenOption[], operands: string[]) => string | undefined;
}

/** The formats git names itself; any other name may be a `pretty.<name>` alias in the repository's config. */
const PRETTY_NAMES = new Set([
  'oneline', 'short', 'medium', 'full', 'fuller', 'reference', 'email', 'mboxrd', 'raw',
]); // prettier-ignore

/**
 * A format that shows a signature (`%G…`, `%(signature…)`) runs the signing program
 * (gpg.program, which the repository's config can name), and so may a `pretty.<name>` alias the
 * repository defines: only git's own names and literal format strings pass.
 */
function formatReason(given: GivenOption[]): string | undefined {
  for (const o of given) {
    if ((o.id !== '--pretty' && o.id !== '--format') || o.value === undefined) continue;
    const literal = /^t?format:/.test(o.value) || o.value.includes('%');
    if (!literal && !PRETTY_NAMES.has(o.value))
      return `\`${o.name}=${o.value}\` may name a format the repository defines`;
    if (/%G|%\(signature/.test(o.value))
      return `\`${o.name}=${o.value}\` checks signatures with another program`;
  }
  return undefined;
}

/**
 * `git branch` and `git tag` list; an operand is a pattern only after `--list`/`-l`, else it
 * names a branch or tag to create. (`--merged main` gives git a commit to list against; the
 * judge reads `main` as an operand and asks, which errs on the side of asking.)
 */
const listing =
  (what: string) =>
  (given: GivenOption[], operands: string[]): string | undefined =>
    formatReason(given) ??
    (operands.length > 0 && !given.some((o) => o.id === '-l')
      ? `\`git ${what} ${operands[0]}\` creates a ${what}`
      : undefined);

const SUBCOMMANDS: Record<string, Subcommand> = {
  status: {
    table: options([
      '-s --short', '-b --branch', '--show-stash', '--porcelain[=]', '--long', '-v --verbose',
      '-u[=] --untracked-files[=]', '--ignore-submodules[=]', '--ignored[=]', '-z', '--column[=]',
      '--no-column', '--ahead-behind', '--no-ahead-behind', '--renames', '--no-renames',
      '--find-renames[=]',
    ]), // prettier-ignore
  },
  log: { table: options([...REVISIONS, ...DIFF]), numbers: true, check: formatReason },
  show: { table: options([...REVISIONS, ...DIFF]), numbers: true, check: formatReason },
  diff: { table: options([...DIFF, '--cached --staged', '--merge-base']) },
  'diff-tree': {
    table: options([
      ...DIFF,
      '-r',
      '-t',
      '--root',
      '-m',
      '-c',
      '--cc',
      '--no-commit-id',
      '-v',
      '--always',
    ]),
  },
  'rev-list': { table: options(REVISIONS), numbers: true, check: formatReason },
  shortlog: {
    table: options([
      ...REVISIONS,
      '-s --summary',
      '-e --email',
      '--committer',
      '--group=',
      '-w[=]',
    ]),
    numbers: true,
    check: formatReason,
  },
  'ls-files': {
    table: options([
      '-c --cached', '-d --deleted', '-m --modified', '-o --others', '-i --ignored', '-s --stage',
      '-u --unmerged', '-k --killed', '--directory', '--no-empty-directory', '-z', '-t', '-v',
      '-f', '--full-name', '--exclude-standard', '-x= --exclude=', '--error-unmatch',
      '--abbrev[=]', '--eol', '--deduplicate', '--format=',
    ]), // prettier-ignore
  },
  'ls-tree': {
    table: options([
      '-d', '-r', '-t', '-l --long', '-z', '--name-only --name-status', '--object-only',
      '--full-name', '--full-tree', '--abbrev[=]', '--format=',
    ]), // prettier-ignore
  },
  'cat-file': { table: options(['-t', '-s', '-e', '-p']) },
  blame: {
    table: options([
      '-b', '--root', '--show-stats', '-l', '-t', '-s', '-e --show-email', '-f --show-name',
      '-n --show-number', '-w', '-p --porcelain', '--line-porcelain', '--incremental',
      '-M[=]', '-C[=]', '-L=', '--date=', '--abbrev[=]', '-c', '--color-lines', '--color-by-age',
      '--minimal', '--first-parent', '--ignore-rev=', '--progress', '--no-progress',
      '--no-textconv',
    ]), // prettier-ignore
  },
  grep: {
    table: options([
      '-a --text', '--no-textconv', '-i --ignore-case', '-I', '--max-depth=', '-r --recursive',
      '--no-recursive', '-w --word-regexp', '-v --invert-match', '-h', '-H', '--full-name',
      '-E --extended-regexp', '-G --basic-regexp', '-P --perl-regexp', '-F --fixed-strings',
      '-n --line-number', '--column', '-l --files-with-matches --name-only',
      '-L --files-without-match', '-z --null', '-o --only-matching', '-c --count', '--color[=]',
      '--no-color', '--break', '--heading', '-p --show-function', '-A= --after-context=',
      '-B= --before-context=', '-C= --context=', '-W --function-context', '--threads=',
      '-e=', '--and', '--or', '--not', '--all-match', '-q --quiet', '--cached', '--untracked',
      '--exclude-standard', '--no-exclude-standard', '-m= --max-count=',
    ]), // prettier-ignore
    numbers: true,
  },
  describe: {
    table: options([
      '--all', '--tags', '--contains', '--abbrev[=]', '--candidates=', '--exact-match', '--debug',
      '--long', '--match=', '--exclude=', '--always', '--first-parent', '--dirty[=]', '--broken[=]',
    ]), // prettier-ignore
  },
  'rev-parse': {
    table: options([
      '--show-toplevel', '--show-prefix', '--show-cdup', '--git-dir', '--absolute-git-dir',
      '--git-common-dir', '--is-inside-work-tree', '--is-inside-git-dir', '--is-bare-repository',
      '--abbrev-ref[=]', '--short[=]', '--verify', '-q --quiet', '--symbolic',
      '--symbolic-full-name', '--all', '--branches', '--tags', '--remotes',
    ]), // prettier-ignore
  },
  'merge-base': {
    table: options(['-a --all', '--octopus', '--independent', '--is-ancestor', '--fork-point']),
  },
  'show-ref': {
    table: options([
      '--head', '--heads', '--tags', '-d --dereference', '-s --hash[=]', '--abbrev[=]',
      '--verify', '-q --quiet',
    ]), // prettier-ignore
  },
  'count-objects': { table: options(['-v --verbose', '-H --human-readable']) },
  branch: {
    table: options([
      '-l --list', '-a --all', '-r --remotes', '-v --verbose', '--show-current',
      '--no-color', '--color[=]', '--merged[=]', '--no-merged[=]', '--contains[=]',
      '--no-contains[=]',
      '--sort=', '--format=', '--points-at=', '--column[=]', '--no-column', '-i --ignore-case',
      '--abbrev[=]', '--no-abbrev',
    ]), // prettier-ignore
    check: listing('branch'),
  },
  tag: {
    table: options([
      '-l --list', '-n[=]', '--sort=', '--contains[=]', '--no-contains[=]', '--merged[=]',
      '--no-merged[=]', '--points-at=', '--format=', '--column[=]', '--no-column',
      '-i --ignore-case', '--color[=]',
    ]), // prettier-ignore
    check: listing('tag'),
  },
  remote: {
    table: options(['-v --verbose']),
    check: (_given, operands) =>
      operands.length > 0
        ? `\`git remote ${operands[0]}\` changes remotes or goes online`
        : undefined,
  },
};

/**
 * git's own parser, read so that an arity the table gets wrong cannot hide anything: a value
 * given as the next word must not start with `-` (or it might be an option git reads), and it is
 * confined like an operand (in case git reads it as one).
 */
/**
 * Subcommands that show diffs: they run with external diff programs and textconv filters off, so
 * a repository whose config names them still shows its diffs (the environment disarms what the
 * repository names, and git would fail on the disarmed driver).
 */
const NO_DRIVERS: Record<string, readonly string[]> = {
  diff: ['--no-ext-diff', '--no-textconv'],
  log: ['--no-ext-diff', '--no-textconv'],
  show: ['--no-ext-diff', '--no-textconv'],
  'diff-tree': ['--no-ext-diff', '--no-textconv'],
  blame: ['--no-textconv'],
};

export const git: Program = {
  rewrite(args) {
    let i = 0;
    // Global options before the subcommand; -C, -c and the long ones without `=` take the next word.
    while (args[i]?.startsWith('-'))
      i += /^(-C|-c|--git-dir|--work-tree|--namespace|--super-prefix|--config-env)$/.test(args[i]!)
        ? 2
        : 1;
    const sub = args[i];
    const extra = sub !== undefined && Object.hasOwn(NO_DRIVERS, sub) ? NO_DRIVERS[sub]! : [];
    const rest = args.slice(i + 1);
    const end = rest.indexOf('--');
    const options = end === -1 ? rest : rest.slice(0, end);
    const missing = extra.filter((w) => !options.includes(w));
    return [...args.slice(0, i + 1), ...missing, ...rest];
  },
  check(args) {
    let i = 0;
    while (args[i]?.startsWith('-')) {
      if (!GLOBAL.has(args[i] ?? ''))
        return `the git option \`${args[i]}\` (before the subcommand) can run programs or change where git works`;
      i++;
    }
    const name = args[i];
    if (name === undefined) return 'git without a subcommand';
    const sub = Object.hasOwn(SUBCOMMANDS, name) ? SUBCOMMANDS[name] : undefined;
    if (!sub) return `\`git ${name}\` is not a read-only git subcommand on the list`;
    const given: GivenOption[] = [];
    const operands: string[] = [];
    const paths: string[] = [];
    const rest = args.slice(i + 1);
    const nextValue = (j: number, option: string): string | { reason: string } => {
      const value = rest[j];
      if (value === undefined) return { reason: `\`${option}\` needs a value` };
      if (value.startsWith('-'))
        return { reason: `\`${option} ${value}\`: a value that starts with \`-\` is not judged` };
      paths.push(value);
      return value;
    };
    let pathspecs = false;
    for (let j = 0; j < rest.length; j++) {
      const arg = rest[j] ?? '';
      if (pathspecs || arg === '-' || !arg.startsWith('-')) {
        operands.push(arg);
        paths.push(arg);
      } else if (arg === '--') {
        pathspecs = true;
      } else if (sub.numbers && /^-[0-9]+$/.test(arg)) {
        given.push({ id: '-NUMBER', name: arg, value: arg.slice(1) });
      } else if (arg.startsWith('--')) {
        const eq = arg.indexOf('=');
        const long = eq === -1 ? arg : arg.slice(0, eq);
        const def = sub.table.byName.get(long);
        if (!def) return `the option \`${long}\` of \`git ${name}\` is not on the list`;
        let value: string | undefined = eq === -1 ? undefined : arg.slice(eq + 1);
        if (def.arity === 'none' && value !== undefined) return `\`${long}\` takes no value`;
        if (def.arity === 'required' && value === undefined) {
          const next = nextValue(++j, long);
          if (typeof next !== 'string') return next.reason;
          value = next;
        }
        given.push({ id: def.id, name: long, value });
      } else {
        for (let k = 1; k < arg.length; k++) {
          const short = `-${arg[k]}`;
          const def = sub.table.byName.get(short);
          if (!def) return `the option \`${short}\` of \`git ${name}\` is not on the list`;
          if (def.arity === 'none') {
            given.push({ id: def.id, name: short, value: undefined });
            continue;
          }
          let value: string | undefined = arg.slice(k + 1);
          if (value === '' && def.arity === 'required') {
            const next = nextValue(++j, short);
            if (typeof next !== 'string') return next.reason;
            value = next;
          }
          given.push({ id: def.id, name: short, value: value === '' ? undefined : value });
          break;
        }
      }
    }
    const reason = sub.check?.(given, operands);
    if (reason) return reason;
    const needs: Needs = { paths, gitRepository: true };
    return needs;
  },
};
