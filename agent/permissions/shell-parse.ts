import { createRequire } from 'node:module';
import type { Node, Parser } from 'web-tree-sitter';

/**
 * The bash grammar (tree-sitter-bash's WASM build through web-tree-sitter), loaded on the first
 * command judged and kept for the process: the grammar is immutable, and a parse is synchronous,
 * so one parser serves every caller. Nothing is loaded at import time.
 */
let parserPromise: Promise<Parser> | undefined;

function loadParser(): Promise<Parser> {
  parserPromise ??= (async () => {
    const require = createRequire(import.meta.url);
    const { Parser: TreeParser, Language } = await import('web-tree-sitter');
    await TreeParser.init();
    const bash = await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'));
    const parser = new TreeParser();
    parser.setLanguage(bash);
    return parser;
  })();
  // A failed load is not cached: the next judgement tries again.
  parserPromise.catch(() => (parserPromise = undefined));
  return parserPromise;
}

/** An operator between two commands, as sh reads it (a newline separates like `;`). */
export type Operator = '|' | '&&' | '||' | ';' | '\n';

/** One simple command: its words and its redirections, each in POSIX form, in written order. */
export interface ParsedCommand {
  argv: string[];
  /** Only `N>/dev/null`, `N>>/dev/null` and `N>&M`/`N<&M` with M in 0–2 (`&>` is split in two). */
  redirects: string[];
}

/**
 * What the parse tree says, when every node in it is one this module understands: the commands
 * in the order they run and the operator before each but the first (`operators[i]` stands
 * between `commands[i]` and `commands[i + 1]`). Nothing groups commands (subshells and braces
 * are refused), so the flat sequence, re-emitted in order, parses to the same structure.
 */
export type Extraction =
  { ok: true; commands: ParsedCommand[]; operators: Operator[] } | { ok: false; reason: string };

class Unclassified extends Error {}

const fail = (reason: string): never => {
  throw new Unclassified(reason);
};

/** Unquoted word characters taken literally by both bash and sh (no globs, braces, escapes). */
const PLAIN_WORD = /^[A-Za-z0-9_\-.,/:=@%+^#!~]+$/;

/** Words sh reads as syntax in a command's first position: never a program here. */
const RESERVED = new Set([
  'if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'case', 'esac', 'while', 'until', 'for',
  'in', 'function', 'select', 'time', 'coproc',
]); // prettier-ignore

/**
 * Parse a command line and turn it into argv lists, or say why it cannot be. Only a small set of
 * node kinds is understood: a program of lists and pipelines of commands whose words are plain,
 * single-quoted or double-quoted text without expansions, and redirections of output to
 * /dev/null or between descriptors. Everything else (substitutions, expansions, assignments,
 * here-docs, subshells, control flow, background jobs, parse errors) is refused with its reason.
 */
export async function extractCommands(source: string): Promise<Extraction> {
  const parser = await loadParser();
  const tree = parser.parse(source);
  if (!tree) return { ok: false, reason: 'the parser returned no tree' };
  try {
    const root = tree.rootNode;
    if (root.hasError) fail('the command does not parse as shell');
    const out: Out = { commands: [], operators: [], pending: undefined };
    checkGaps(root, source, 'lines');
    for (const child of root.children) {
      if (!child.isNamed) {
        if (child.type === ';') out.pending = ';';
        else if (child.type === '&') fail('`&` runs a command in the background');
        else fail(`cannot classify the token \`${child.type}\``);
        continue;
      }
      if (child.type === 'comment') continue;
      statement(child, out);
    }
    if (out.commands.length === 0) fail('no command');
    return { ok: true, commands: out.commands, operators: out.operators };
  } catch (err) {
    if (err instanceof Unclassified) return { ok: false, reason: err.message };
    throw err;
  } finally {
    tree.delete();
  }
}

/** A word as sh reads it literally: single quotes, with each `'` written `'\''`. */
export function quoteWord(word: string): string {
  return `'${word.replaceAll("'", "'\\''")}'`;
}

/**
 * The command line that runs what was judged: each program name bare (a plain name, checked),
 * every argument single-quoted, the redirections and operators re-emitted in POSIX form. sh
 * reads it back to exactly these argv lists, whatever the model's spelling was.
 */
export function serialiseCommands(
  commands: readonly ParsedCommand[],
  operators: readonly Operator[],
): string {
  return commands
    .map((command, i) => {
      const [program = '', ...args] = command.argv;
      const text = [program, ...args.map(quoteWord), ...command.redirects].join(' ');
      if (i === 0) return text;
      const op = operators[i - 1] ?? ';';
      return `${op === '\n' ? '\n' : op === ';' ? '; ' : ` ${op} `}${text}`;
    })
    .join('');
}

type Out = {
  commands: ParsedCommand[];
  operators: Operator[];
  /** The operator read since the last command; none between two statements is a newline. */
  pending: Operator | undefined;
};

function push(out: Out, command: ParsedCommand): void {
  if (out.commands.length > 0) out.operators.push(out.pending ?? '\n');
  out.pending = undefined;
  out.commands.push(command);
}

function statement(node: Node, out: Out): void {
  switch (node.type) {
    case 'command':
      push(out, command(node));
      return;
    case 'redirected_statement':
      redirected(node, out);
      return;
    case 'pipeline':
    case 'list':
      checkGaps(node, undefined, node.type === 'list' ? 'lines' : 'blanks');
      for (const child of node.children) {
        if (child.isNamed) statement(child, out);
        else if (child.type === '|' || child.type === '&&' || child.type === '||')
          out.pending = child.type;
        else fail(`\`${child.type}\` is not judged safe`);
      }
      return;
    default:
      fail(describeNode(node));
  }
}

/**
 * A statement with redirections after it. The grammar sometimes hangs a redirection written after
 * the last command of a pipeline or list on the whole of it (`a && b 2>/dev/null | c` parses as
 * `(a && b) 2>/dev/null | c`); sh applies a redirection to the simple command it follows, and so
 * does this, and the flat sequence of commands keeps sh's own precedence when re-emitted.
 */
function redirected(node: Node, out: Out): void {
  checkGaps(node);
  let body: Node | undefined;
  const redirects: string[] = [];
  for (const child of node.children) {
    if (child.type === 'file_redirect') redirects.push(...redirect(child));
    else if (['command', 'pipeline', 'list'].includes(child.type) && !body) body = child;
    else fail(describeNode(child));
  }
  if (!body) return fail('a redirection without a command');
  if (body.type === 'command') {
    const parsed = command(body);
    push(out, { argv: parsed.argv, redirects: [...parsed.redirects, ...redirects] });
    return;
  }
  statement(body, out);
  out.commands.at(-1)?.redirects.push(...redirects);
}

/**
 * `>/dev/null`, `2>/dev/null`, `&>/dev/null`, `2>&1`, `>&2`: nothing else is safe. Returned in
 * the form sh reads the same as bash: `&>/dev/null` (in sh: `&` then `>/dev/null`) becomes
 * `>/dev/null 2>&1`; a descriptor has one digit, since sh reads `10>` as the word `10` and `>`.
 */
function redirect(node: Node): string[] {
  checkGaps(node);
  let op = '';
  let fd = '';
  let target: Node | undefined;
  for (const child of node.children) {
    if (child.type === 'file_descriptor') fd = child.text;
    else if (!child.isNamed) op += child.type;
    else if (target) fail('a redirection with two targets');
    else target = child;
  }
  if (fd !== '' && !/^[0-9]$/.test(fd))
    fail(`the descriptor \`${fd}\` has more than one digit, which sh reads as a word`);
  const text = target?.text ?? '';
  if (['>&', '<&'].includes(op) && target?.type === 'number' && /^[0-2]$/.test(text))
    return [`${fd}${op}${text}`];
  if (target?.type === 'word' && text === '/dev/null') {
    if (op === '>' || op === '>>') return [`${fd}${op}/dev/null`];
    if ((op === '&>' || op === '&>>') && fd === '') return [`${op.slice(1)}/dev/null`, '2>&1'];
  }
  if (op === '<') fail('reading a file through `<` is not judged safe');
  if (op.startsWith('<<')) fail('a here-document or here-string is not judged safe');
  return fail(`the redirection \`${node.text}\` writes or duplicates outside /dev/null`);
}

function command(node: Node): ParsedCommand {
  checkGaps(node);
  const argv: string[] = [];
  const redirects: string[] = [];
  for (const child of node.children) {
    if (child.type === 'file_redirect') {
      redirects.push(...redirect(child));
    } else if (child.type === 'variable_assignment') {
      fail('an assignment before the command (`NAME=value cmd`) is not judged safe');
    } else if (child.type === 'command_name') {
      argv.push(programName(child));
    } else if (child.isNamed) {
      if (argv.length === 0) fail(describeNode(child));
      argv.push(word(child));
    } else {
      fail(`cannot classify the token \`${child.type}\``);
    }
  }
  if (argv.length === 0) fail('no command');
  return { argv, redirects };
}

/** The program must be one bare name: no path, quote, escape, glob or expansion. */
function programName(node: Node): string {
  const only = node.namedChildCount === 1 ? node.namedChild(0) : undefined;
  if (!only || only.type !== 'word' || node.childCount !== 1) {
    const kind = only && /expansion|substitution/.test(only.type) ? ` (${only.type})` : '';
    return fail(`the program is not a plain name${kind}: \`${node.text}\``);
  }
  const name = only.text;
  if (name.includes('/') || name.startsWith('~'))
    fail(`a path as the program (\`${name}\`) is not judged safe`);
  if (!/^[A-Za-z0-9][A-Za-z0-9._+-]*$/.test(name))
    fail(`the program \`${name}\` is not a plain name`);
  if (RESERVED.has(name)) fail(`\`${name}\` is a word of shell syntax, not a program`);
  return name;
}

/** One argument's value, exactly as the shell would pass it, or a refusal. */
function word(node: Node): string {
  switch (node.type) {
    case 'word': {
      const text = node.text;
      // `\'` is how a quoted word writes its own `'` (`'it'\''s'`): a literal quote in sh too.
      if (text === "\\'") return "'";
      if (!PLAIN_WORD.test(text))
        return fail(`the word \`${text}\` has characters the shell could expand or escape`);
      if (text.startsWith('~') || /[=:]~/.test(text))
        return fail(`\`${text}\`: a \`~\` the shell expands to a home directory`);
      if (text.startsWith('#')) return fail(`\`${text}\` starts a comment`);
      return text;
    }
    case 'number':
      if (!/^-?[0-9]+$/.test(node.text)) return fail(`the number \`${node.text}\``);
      return node.text;
    case 'raw_string':
      return node.text.slice(1, -1);
    case 'string':
      return doubleQuoted(node);
    case 'concatenation':
      checkGaps(node, undefined, 'none');
      return node.children.map((c) => word(c)).join('');
    default:
      return fail(describeNode(node));
  }
}

/** A double-quoted string with text only; `\` removed where sh removes it (before $ ` " \). */
function doubleQuoted(node: Node): string {
  for (const child of node.children) {
    if (child.type !== '"' && child.type !== 'string_content')
      return fail(describeNode(child, 'in a quoted string'));
  }
  const inner = node.text.slice(1, -1);
  if (/[$`]/.test(inner.replace(/\\[\s\S]/g, '')))
    return fail(`\`${node.text}\`: an expansion inside quotes`);
  return inner.replace(/\\([$`"\\\n])/g, (_m, c: string) => (c === '\n' ? '' : c));
}

/**
 * Between a node's children only blanks may stand (and newlines where statements are listed):
 * text the tree does not cover, such as a backslash-newline that joins two words the grammar
 * split, means the parser and the shell could read the line differently.
 */
type Gaps = 'none' | 'blanks' | 'lines';
const GAP: Record<Gaps, RegExp> = { none: /^$/, blanks: /^[ \t]*$/, lines: /^[ \t\n]*$/ };

function checkGaps(node: Node, source?: string, gaps: Gaps = 'blanks'): void {
  const text = source ?? node.tree.rootNode.text;
  let at = node.startIndex;
  for (const child of node.children) {
    const gap = text.slice(at, child.startIndex);
    if (!GAP[gaps].test(gap))
      fail(`the text ${JSON.stringify(gap)} is not covered by the parse (a line continuation?)`);
    at = child.endIndex;
  }
  const tail = text.slice(at, node.endIndex);
  if (!/^[ \t\n]*$/.test(tail))
    fail(`the text ${JSON.stringify(tail)} is not covered by the parse`);
}

const NODE_REASONS: Record<string, string> = {
  command_substitution: 'a command substitution (`$(…)` or backticks)',
  process_substitution: 'a process substitution (`<(…)` or `>(…)`)',
  simple_expansion: 'a variable expansion (`$X`)',
  expansion: 'a parameter expansion (`${X}`)',
  arithmetic_expansion: 'an arithmetic expansion',
  ansi_c_string: "an ANSI-C string (`$'…'`)",
  translated_string: 'a translated string (`$"…"`)',
  brace_expression: 'a brace expansion',
  subshell: 'a subshell',
  compound_statement: 'a command group',
  negated_command: 'a negated command',
  heredoc_redirect: 'a here-document',
  herestring_redirect: 'a here-string',
  function_definition: 'a function definition',
  variable_assignment: 'an assignment',
};

function describeNode(node: Node, where = ''): string {
  const known = NODE_REASONS[node.type];
  const what = known ?? `a \`${node.type}\` node the judge does not classify`;
  return `${what}${where ? ` ${where}` : ''} is not judged safe`;
}
