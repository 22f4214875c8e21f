import type { Program } from './program.js';

/**
 * Names in a jq filter that reach past the JSON it is given: the environment (`env`, `$ENV`),
 * file names and arguments (`input_filename`, `$__prog_args`), and modules read from the library
 * search path (`import`, `include`, `modulemeta`, `get_search_list`). Scanned as words anywhere in
 * the filter, strings and comments included (a string's `\(…)` is code); only `.name` after a
 * lone dot is a field, which the lexer reads as one token.
 */
const REACHES_OUT = new Set([
  'env', 'ENV', 'input_filename', '__prog_args', 'import', 'include', 'modulemeta',
  'get_search_list', 'get_prog_origin', 'get_jq_origin',
]); // prettier-ignore

export function jqFilterReason(filter: string): string | undefined {
  for (const match of filter.matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)) {
    const name = match[0];
    const at = match.index;
    if (!REACHES_OUT.has(name)) continue;
    const before = filter.slice(Math.max(0, at - 2), at);
    const isField = before.endsWith('.') && !/[.0-9A-Za-z_]\.$/.test(before);
    if (!isField) return `the jq filter uses \`${name}\`, which reads beyond its input`;
  }
  return undefined;
}

/** jq's flags, as jq 1.6 and 1.7 read them: letters may cluster (`-rc`), long names are exact. */
const SHORT = new Set('srjcCMaSRne'.split(''));
const LONG_FLAGS = new Set([
  '--slurp', '--raw-output', '--join-output', '--compact-output', '--color-output',
  '--monochrome-output', '--ascii-output', '--sort-keys', '--raw-input', '--null-input',
  '--exit-status', '--tab', '--seq', '--stream', '--unbuffered',
]); // prettier-ignore
/** Long options and how many words follow them; `--rawfile NAME FILE` and `--slurpfile` read FILE. */
const LONG_VALUES = new Map([
  ['--indent', 1],
  ['--arg', 2],
  ['--argjson', 2],
  ['--rawfile', 2],
  ['--slurpfile', 2],
]);

/**
 * jq reads its arguments by hand: a word is an option when it starts with `-` and then `-` or a
 * letter; the first other word is the filter and the rest are input files, or strings after
 * `--args`/`--jsonargs`; `--` makes every later word a positional one. Left out: `-f` (the filter
 * comes from a file the judge does not see, and jq then reads the first positional word as that
 * file), `-L` (a module search path) and `--run-tests`.
 */
export const jq: Program = {
  check(args) {
    const paths: string[] = [];
    let filter: string | undefined;
    let positionalAreArgs = false;
    let onlyPositional = false;
    for (let i = 0; i < args.length; i++) {
      const arg = args[i] ?? '';
      if (onlyPositional || !/^-[-A-Za-z]/.test(arg)) {
        if (filter === undefined) filter = arg;
        else if (!positionalAreArgs) paths.push(arg);
        continue;
      }
      if (arg === '--') {
        onlyPositional = true;
      } else if (arg === '--args' || arg === '--jsonargs') {
        positionalAreArgs = true;
      } else if (LONG_VALUES.has(arg)) {
        const count = LONG_VALUES.get(arg) ?? 0;
        if (i + count >= args.length) return `\`${arg}\` needs ${count} words after it`;
        if (arg === '--rawfile' || arg === '--slurpfile') paths.push(args[i + 2] ?? '');
        i += count;
      } else if (arg.startsWith('--')) {
        if (!LONG_FLAGS.has(arg)) return `the option \`${arg}\` of jq is not on the list`;
      } else {
        const letters = arg.slice(1);
        const bad = [...letters].find((c) => !SHORT.has(c));
        if (bad !== undefined) return `the option \`-${bad}\` of jq is not on the list`;
        if (new Set(letters).size !== letters.length) return `\`${arg}\` repeats a letter`;
      }
    }
    if (filter === undefined) return 'jq without a filter';
    const reason = jqFilterReason(filter);
    if (reason) return reason;
    return { paths: paths.filter((p) => p !== '-') };
  },
};
