import { has, options } from './getopt.js';
import { fileOperands, getoptProgram, pathsOf, type Program } from './program.js';

/**
 * The programs that search trees. None of them follows a symlink met while walking a tree by
 * default, and the options that would (`grep -R`, `rg -L`, `find -L`, `tree -l`) are left out,
 * so a walk from a confined folder stays inside it.
 */

/**
 * GNU grep: the pattern is the first operand unless `-e` or `-f` gives it; `-f` and
 * `--exclude-from` read files. A digit is an option (`-5` is `-C 5`).
 */
const grep = getoptProgram(
  options([
    '-E --extended-regexp', '-F --fixed-strings', '-G --basic-regexp', '-P --perl-regexp',
    '-e= --regexp=', '-f= --file=', '-i -y --ignore-case', '--no-ignore-case', '-v --invert-match',
    '-w --word-regexp', '-x --line-regexp', '-c --count', '--color[=]', '--colour[=]',
    '-L --files-without-match', '-l --files-with-matches', '-m= --max-count=', '-o --only-matching',
    '-q --quiet --silent', '-s --no-messages', '-b --byte-offset', '-H --with-filename',
    '-h --no-filename', '--label=', '-n --line-number', '--line-buffered', '-T --initial-tab',
    '-Z --null', '-A= --after-context=', '-B= --before-context=', '-C= --context=',
    '--group-separator=', '--no-group-separator', '-a --text', '--binary-files=', '-D= --devices=',
    '-d= --directories=', '--exclude=', '--exclude-from=', '--exclude-dir=', '--include=', '-I',
    '-r --recursive', '-U --binary', '-z --null-data',
    '-0', '-1', '-2', '-3', '-4', '-5', '-6', '-7', '-8', '-9',
  ]), // prettier-ignore
  (parsed) => {
    const patternGiven = has(parsed, '-e', '-f');
    const operands = patternGiven ? parsed.operands : parsed.operands.slice(1);
    return { paths: pathsOf({ ...parsed, operands }, ['-f', '--exclude-from']) };
  },
);

/**
 * ripgrep. `--pre`, `--pre-glob`, `-z` and `--hostname-bin` run programs; `-f` and
 * `--ignore-file` read other files; `-L` follows symlinks. `--no-config` goes first, so a config
 * file named in the environment cannot add options the judge did not see.
 */
const rg = getoptProgram(
  options([
    '--no-config', '-e= --regexp=', '-i --ignore-case', '-S --smart-case', '-s --case-sensitive',
    '-n --line-number', '-N --no-line-number', '-w --word-regexp', '-x --line-regexp',
    '-v --invert-match', '-c --count', '--count-matches', '-l --files-with-matches',
    '--files-without-match', '-o --only-matching', '-F --fixed-strings', '-H --with-filename',
    '-I --no-filename', '--heading', '--no-heading', '--hidden', '--no-hidden', '--no-ignore',
    '--no-ignore-vcs', '--no-ignore-parent', '--no-ignore-dot', '--no-ignore-global',
    '--no-ignore-exclude', '-u --unrestricted', '-q --quiet', '--json', '--vimgrep', '--stats',
    '--files', '--type-list', '-U --multiline', '--multiline-dotall', '-P --pcre2', '--column',
    '--no-column', '-0 --null', '-a --text', '--trim', '-p --pretty', '-b --byte-offset',
    '--no-messages', '--one-file-system', '--crlf', '--passthru', '--line-buffered',
    '--block-buffered', '--include-zero', '--glob-case-insensitive', '--max-columns-preview',
    '-g= --glob=', '--iglob=', '-t= --type=', '-T= --type-not=', '--type-add=',
    '-A= --after-context=', '-B= --before-context=', '-C= --context=', '-m= --max-count=',
    '-M= --max-columns=', '-d= --max-depth=', '-j= --threads=', '--sort=', '--sortr=',
    '-r= --replace=', '--max-filesize=', '-E= --encoding=', '--color=', '--colors=',
    '--context-separator=', '--path-separator=', '--field-match-separator=',
    '--field-context-separator=', '--engine=',
  ]), // prettier-ignore
  (parsed) => {
    const noPattern = has(parsed, '-e', '--files', '--type-list');
    return { paths: fileOperands(noPattern ? parsed.operands : parsed.operands.slice(1)) };
  },
  ['--no-config'],
);

/** find's tests and options, by how many words follow them. */
const FIND_WORDS = new Map<string, 0 | 1>([
  ...[
    '-a', '-and', '-o', '-or', '!', '-not', '(', ')', ',', '-true', '-false', '-print',
    '-print0', '-ls', '-prune', '-quit', '-depth', '-d', '-mount', '-xdev', '-noleaf', '-empty',
    '-executable', '-readable', '-writable', '-nogroup', '-nouser', '-daystart', '-warn',
    '-nowarn', '-ignore_readdir_race', '-noignore_readdir_race',
  ].map((w) => [w, 0] as const),
  ...[
    '-name', '-iname', '-path', '-ipath', '-wholename', '-iwholename', '-regex', '-iregex',
    '-regextype', '-lname', '-ilname', '-type', '-xtype', '-size', '-perm', '-user', '-group',
    '-uid', '-gid', '-links', '-inum', '-mtime', '-atime', '-ctime', '-mmin', '-amin', '-cmin',
    '-used', '-maxdepth', '-mindepth', '-printf', '-fstype', '-context',
  ].map((w) => [w, 1] as const),
]); // prettier-ignore

/** Tests whose word names a file find reads the times or identity of. */
const FIND_FILE_TESTS = new Set(['-newer', '-anewer', '-cnewer', '-samefile']);

/**
 * GNU find: leading `-H`/`-P`, then start points (every word before the first that starts with
 * `-` and more, or is `(` or `!`), then the expression. Actions that run programs, delete or
 * write files (`-exec`, `-ok`, `-delete`, `-fprint`, `-fls`, …) are not on the list, nor are
 * `-L`/`-follow`, nor `-files0-from` (start points from a file).
 */
const find: Program = {
  check(args) {
    let i = 0;
    while (args[i] === '-H' || args[i] === '-P') i++;
    if (args[i] === '--') i++;
    const starts: string[] = [];
    for (; i < args.length; i++) {
      const arg = args[i] ?? '';
      if ((arg.startsWith('-') && arg.length > 1) || arg === '(' || arg === '!') break;
      starts.push(arg);
    }
    const paths = [...(starts.length > 0 ? starts : ['.'])];
    for (; i < args.length; i++) {
      const arg = args[i] ?? '';
      const value = args[i + 1];
      if (FIND_FILE_TESTS.has(arg) || /^-newer[abcmB][abcmB]$/.test(arg)) {
        if (value === undefined) return `\`find ${arg}\` needs a file`;
        paths.push(value);
        i++;
      } else if (/^-newer[abcmB]t$/.test(arg)) {
        if (value === undefined) return `\`find ${arg}\` needs a time`;
        i++;
      } else if (FIND_WORDS.has(arg)) {
        if (FIND_WORDS.get(arg) === 1) {
          if (value === undefined) return `\`find ${arg}\` needs a value`;
          i++;
        }
      } else {
        return `\`find ${arg}\` is not on the list of find's tests (it may run, delete or write)`;
      }
    }
    return { paths };
  },
};

const TREE_FLAGS = new Set('adfixqNQpugshDFvtcUrCnASXJ'.split(''));
const TREE_VALUE_FLAGS = new Set(['L', 'P', 'I']);
const TREE_LONG = new Map<string, 0 | 1>([
  ...[
    '--noreport', '--dirsfirst', '--filesfirst', '--si', '--du', '--inodes', '--device',
    '--prune', '--matchdirs', '--ignore-case', '--gitignore', '--nolinks', '--metafirst',
  ].map((w) => [w, 0] as const),
  ...['--charset', '--filelimit', '--sort', '--timefmt'].map((w) => [w, 1] as const),
]); // prettier-ignore

/**
 * tree reads its own options: a short one that takes a value takes the next unused word
 * (`-LP 2 '*.ts'`), and long ones are exact. `-o` writes a file, `-R` writes one per folder,
 * `-l` follows symlinks, `--fromfile` and `--infofile` read other files.
 */
const tree: Program = {
  check(args) {
    const paths: string[] = [];
    let onlyOperands = false;
    for (let i = 0; i < args.length; i++) {
      const arg = args[i] ?? '';
      if (onlyOperands || !arg.startsWith('-') || arg === '-') {
        paths.push(arg);
      } else if (arg === '--') {
        onlyOperands = true;
      } else if (arg.startsWith('--')) {
        const [name = '', value] = arg.split(/=(.*)/s);
        const words = TREE_LONG.get(name);
        if (words === undefined) return `the option \`${name}\` of tree is not on the list`;
        if (words === 1 && value === undefined) {
          if (i + 1 >= args.length) return `\`${name}\` needs a value`;
          i++;
        }
      } else {
        for (const flag of arg.slice(1)) {
          if (TREE_VALUE_FLAGS.has(flag)) {
            if (i + 1 >= args.length) return `\`-${flag}\` needs a value`;
            i++;
          } else if (!TREE_FLAGS.has(flag)) {
            return `the option \`-${flag}\` of tree is not on the list`;
          }
        }
      }
    }
    return { paths };
  },
};

export const SEARCH: Record<string, Program> = {
  grep,
  egrep: grep,
  fgrep: grep,
  rg,
  find,
  tree,
};
