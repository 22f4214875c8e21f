import { options, type Parsed } from './getopt.js';
import {
  NEEDS_NOTHING,
  fileOperands,
  getoptProgram,
  pathsOf,
  type Outcome,
  type Program,
} from './program.js';

/**
 * The small programs of coreutils, diffutils, file and debianutils, each with the options it may
 * take. Left out on purpose: options that write (`sort -o`, `-T`), run programs
 * (`sort --compress-program`, `diff -l`, `file -z`), read a list of further names from a file
 * (`--files0-from`, `file -f`) or follow symlinks while walking a tree (`ls -L`, `du -L`).
 */

/** Every operand is a file or folder the program reads. */
const readsOperands =
  (fileOptions: readonly string[] = []) =>
  (parsed: Parsed): Outcome => ({ paths: pathsOf(parsed, fileOptions) });

const ls = getoptProgram(
  options([
    '-a --all', '-A --almost-all', '--author', '-b --escape', '--block-size=', '-B --ignore-backups',
    '-c', '-C', '--color[=]', '-d --directory', '-D --dired', '-f', '-F --classify[=]', '--file-type',
    '--format=', '--full-time', '-g', '--group-directories-first', '-G --no-group',
    '-h --human-readable', '--si', '-H --dereference-command-line',
    '--dereference-command-line-symlink-to-dir', '--hide=', '--hyperlink[=]', '--indicator-style=',
    '-i --inode', '-I= --ignore=', '-k --kibibytes', '-l', '-m', '-n --numeric-uid-gid',
    '-N --literal', '-o', '-p', '-q --hide-control-chars', '--show-control-chars',
    '-Q --quote-name', '--quoting-style=', '-r --reverse', '-R --recursive', '-s --size', '-S',
    '--sort=', '--time=', '--time-style=', '-t', '-T= --tabsize=', '-u', '-U', '-v',
    '-w= --width=', '-x', '-X', '-Z --context', '--zero', '-1',
  ]), // prettier-ignore
  readsOperands(),
);

const cat = getoptProgram(
  options([
    '-A --show-all', '-b --number-nonblank', '-e', '-E --show-ends', '-n --number',
    '-s --squeeze-blank', '-t', '-T --show-tabs', '-u', '-v --show-nonprinting',
  ]), // prettier-ignore
  readsOperands(),
);

/**
 * head and tail read an old form, `-20`, only as the first argument; there it takes suffixes
 * (`-2c` is two bytes, and then the next word is a file, not `-c`'s value), so only digits pass.
 * Elsewhere a digit is an error, which the table gives by not listing digits.
 */
function headTail(table: ReturnType<typeof options>): Program {
  const program = getoptProgram(table, readsOperands());
  return {
    check(args) {
      const first = args[0] ?? '';
      if (!/^-[0-9]/.test(first)) return program.check(args);
      if (!/^-[0-9]+$/.test(first)) return `\`${first}\`: only \`-NUMBER\` is judged in this form`;
      return program.check(args.slice(1));
    },
  };
}

const head = headTail(
  options([
    '-c= --bytes=', '-n= --lines=', '-q --quiet --silent', '-v --verbose', '-z --zero-terminated',
  ]), // prettier-ignore
);

/** `tail -f` never ends by itself: the command's timeout ends it. */
const tail = headTail(
  options([
    '-c= --bytes=', '-n= --lines=', '-f --follow[=]', '-F', '--max-unchanged-stats=', '--pid=',
    '-q --quiet --silent', '--retry', '-s= --sleep-interval=', '-v --verbose',
    '-z --zero-terminated',
  ]), // prettier-ignore
);

const wc = getoptProgram(
  options([
    '-c --bytes', '-m --chars', '-l --lines', '-L --max-line-length', '-w --words', '--total=',
  ]), // prettier-ignore
  readsOperands(),
);

const sort = getoptProgram(
  options([
    '-b --ignore-leading-blanks', '-d --dictionary-order', '-f --ignore-case',
    '-g --general-numeric-sort', '-i --ignore-nonprinting', '-M --month-sort',
    '-h --human-numeric-sort', '-n --numeric-sort', '-R --random-sort', '--random-source=',
    '-r --reverse', '--sort=', '-V --version-sort', '--batch-size=', '-c --check[=]', '-C',
    '--debug', '-k= --key=', '-m --merge', '-s --stable', '-S= --buffer-size=',
    '-t= --field-separator=', '--parallel=', '-u --unique', '-z --zero-terminated',
  ]), // prettier-ignore
  readsOperands(['--random-source']),
);

const uniq = getoptProgram(
  options([
    '-c --count', '-d --repeated', '-D --all-repeated[=]', '-f= --skip-fields=', '--group[=]',
    '-i --ignore-case', '-s= --skip-chars=', '-u --unique', '-z --zero-terminated',
    '-w= --check-chars=',
  ]), // prettier-ignore
  (parsed) =>
    parsed.operands.length > 1
      ? '`uniq INPUT OUTPUT` writes OUTPUT'
      : { paths: fileOperands(parsed.operands) },
);

const cut = getoptProgram(
  options([
    '-b= --bytes=', '-c= --characters=', '-d= --delimiter=', '-f= --fields=', '-n',
    '--complement', '-s --only-delimited', '--output-delimiter=', '-z --zero-terminated',
  ]), // prettier-ignore
  readsOperands(),
);

/** tr reads only standard input: its operands are sets of characters. */
const tr = getoptProgram(
  options(['-c -C --complement', '-d --delete', '-s --squeeze-repeats', '-t --truncate-set1']),
  () => NEEDS_NOTHING,
);

/**
 * diff compares two files; given a directory it reads the files in it, following their
 * symlinks, so its operands must not be directories, and `-r`, `-N` and `--from-file` are left
 * out. `-l` pipes through `pr`; `-X` reads a file of patterns.
 */
const diff = getoptProgram(
  options([
    '--normal', '-q --brief', '-s --report-identical-files', '-c', '-C= --context[=]', '-u',
    '-U= --unified[=]', '-e --ed', '-n --rcs', '-y --side-by-side', '-W= --width=',
    '--left-column', '--suppress-common-lines', '-p --show-c-function',
    '-F= --show-function-line=', '--label=', '-t --expand-tabs', '-T --initial-tab',
    '--tabsize=', '--suppress-blank-empty', '-i --ignore-case', '-E --ignore-tab-expansion',
    '-Z --ignore-trailing-space', '-b --ignore-space-change', '-w --ignore-all-space',
    '-B --ignore-blank-lines', '-I= --ignore-matching-lines=', '-a --text', '--strip-trailing-cr',
    '-d --minimal', '--horizon-lines=', '--speed-large-files', '--color[=]', '--palette=',
  ]), // prettier-ignore
  (parsed) => {
    const paths = fileOperands(parsed.operands);
    return { paths, files: paths };
  },
);

const du = getoptProgram(
  options([
    '-0 --null', '-a --all', '--apparent-size', '-B= --block-size=', '-b --bytes', '-c --total',
    '-D -H --dereference-args', '-d= --max-depth=', '-h --human-readable', '--inodes', '-k',
    '-l --count-links', '-m', '-P --no-dereference', '-S --separate-dirs', '--si',
    '-s --summarize', '-t= --threshold=', '--time[=]', '--time-style=', '--exclude=',
    '-x --one-file-system',
  ]), // prettier-ignore
  readsOperands(),
);

/** df with no operand reports every mounted file system of the machine, not the workspace's. */
const df = getoptProgram(
  options([
    '-a --all', '-B= --block-size=', '-h --human-readable', '-H --si', '-i --inodes', '-k',
    '-l --local', '--no-sync', '--output[=]', '-P --portability', '--sync', '--total',
    '-t= --type=', '-T --print-type', '-x= --exclude-type=',
  ]), // prettier-ignore
  (parsed) =>
    fileOperands(parsed.operands).length === 0
      ? 'df without a path reports every mounted file system'
      : { paths: fileOperands(parsed.operands) },
);

/** Operands are resolved before they are judged, so following them (`-L`) stays inside. */
const stat = getoptProgram(
  options([
    '-L --dereference', '-f --file-system', '--cached=', '-c= --format=', '--printf=',
    '-t --terse',
  ]), // prettier-ignore
  readsOperands(),
);

/** `file -z` runs decompressors; `-m`, `-f` and `-C` read or write other files. */
const file = getoptProgram(
  options([
    '--apple', '-b --brief', '-E', '-e= --exclude=', '--exclude-quiet=', '--extension',
    '-F= --separator=', '-h --no-dereference', '-i --mime', '--mime-type', '--mime-encoding',
    '-k --keep-going', '-L --dereference', '-N --no-pad', '-0 --print0', '-P= --parameter=',
    '-r --raw',
  ]), // prettier-ignore
  readsOperands(),
);

const realpath = getoptProgram(
  options([
    '-e --canonicalize-existing', '-m --canonicalize-missing', '-L --logical', '-P --physical',
    '-q --quiet', '--relative-to=', '--relative-base=', '-s --strip --no-symlinks', '-z --zero',
  ]), // prettier-ignore
  readsOperands(['--relative-to', '--relative-base']),
);

/** date: no `-s`; `-f` and `-r` read files; its one operand is a `+FORMAT` (else it sets the clock). */
const date = getoptProgram(
  options([
    '-d= --date=', '--debug', '-f= --file=', '-I[=] --iso-8601[=]', '-R --rfc-email', '--rfc-3339=',
    '-r= --reference=', '-u --utc --universal',
  ]), // prettier-ignore
  (parsed) => {
    if (parsed.operands.length > 1) return 'date takes at most one operand';
    const operand = parsed.operands[0];
    if (operand !== undefined && !operand.startsWith('+'))
      return `\`date ${operand}\` would set the clock`;
    return { paths: pathsOf({ ...parsed, operands: [] }, ['-f', '-r']) };
  },
);

const pwd = getoptProgram(options(['-L --logical', '-P --physical']), (parsed) =>
  parsed.operands.length > 0 ? 'pwd takes no operand' : NEEDS_NOTHING,
);

/** which looks names up on PATH; a name with a slash is a path it tests. */
const which = getoptProgram(options(['-a', '-s']), (parsed) => ({
  paths: parsed.operands.filter((o) => o.includes('/')),
}));

const basename = getoptProgram(
  options(['-a --multiple', '-s= --suffix=', '-z --zero']),
  () => NEEDS_NOTHING,
);
const dirname = getoptProgram(options(['-z --zero']), () => NEEDS_NOTHING);

/** Programs that only print their arguments: nothing in them is a file or an option that acts. */
const printsArgs: Program = { check: () => NEEDS_NOTHING };

/**
 * printf's first word is the format; bash's builtin printf (what `sh` runs where sh is bash)
 * takes `-v NAME` to set a variable such as PATH for the commands after it, so no first word
 * starting with `-` is judged.
 */
const printf: Program = {
  check: (args) =>
    args[0]?.startsWith('-')
      ? `\`printf ${args[0]}\`: an option of printf is not judged`
      : NEEDS_NOTHING,
};

export const COREUTILS: Record<string, Program> = {
  ls,
  cat,
  head,
  tail,
  wc,
  sort,
  uniq,
  cut,
  tr,
  diff,
  du,
  df,
  stat,
  file,
  realpath,
  date,
  pwd,
  which,
  basename,
  dirname,
  echo: printsArgs,
  printf,
  true: printsArgs,
  false: printsArgs,
};
