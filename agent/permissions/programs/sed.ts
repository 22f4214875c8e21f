import { options, valuesOf } from './getopt.js';
import { fileOperands, getoptProgram } from './program.js';

/**
 * One sed command that only prints, deletes or substitutes: an optional address or range of
 * line numbers, `$` or `/regex/`, then `p` or `d`; or `s` with any one-character delimiter of
 * `/|#,:` and flags among g, p, i, I and digits (no `e`, which runs the pattern space, and no
 * `w`, which writes). A regex stops at the first unescaped delimiter, as sed's own reader does.
 */
const ADDRESS = String.raw`(?:[0-9]+|\$|/(?:[^\\/\n]|\\.)*/)`;
const SED_SCRIPT = new RegExp(
  String.raw`^(?:${ADDRESS}(?:,${ADDRESS})?)?[pd]$|^s([/|#,:])(?:(?!\1)[^\\\n]|\\.)*\1(?:(?!\1)[^\\\n]|\\.)*\1[gpiI0-9]*$`,
);

/**
 * GNU sed, always with `--sandbox` first (sed itself then refuses e, r and w), and judged as
 * getopt reads it: `-l N` and `--line-length N` take the next word, `-ne SCRIPT` is `-n -e
 * SCRIPT`. Left out: `-i` (edits files), `-f` (a script the judge cannot see) and
 * `--follow-symlinks` (which only serves `-i`).
 */
export const sed = getoptProgram(
  options([
    '--sandbox', '-n --quiet --silent', '-E -r --regexp-extended', '-s --separate',
    '-u --unbuffered', '-z --null-data --zero-terminated', '--posix', '--debug',
    '-e= --expression=', '-l= --line-length=',
  ]), // prettier-ignore
  (parsed) => {
    const given = valuesOf(parsed, '-e');
    const scripts = given.length > 0 ? given : parsed.operands.slice(0, 1);
    const files = given.length > 0 ? parsed.operands : parsed.operands.slice(1);
    if (scripts.length === 0) return 'sed without a script';
    const unsafe = scripts.find((s) => !SED_SCRIPT.test(s));
    if (unsafe !== undefined)
      return `the sed script \`${unsafe}\` is not a plain print, delete or substitution`;
    return { paths: fileOperands(files) };
  },
  ['--sandbox'],
);
