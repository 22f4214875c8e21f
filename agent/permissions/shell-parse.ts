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

/** What the parse tree says, when every node in it is one this module understands. */
export type Extraction =
  | { ok: true; commands: string[][]; redirects: boolean; separators: boolean }
  | { ok: false; reason: string };

class Unclassified extends Error {}

const fail = (reason: string): never => {
  throw new Unclassified(reason);
};

/** Unquoted word characters taken literally by both bash and sh (no globs, braces, escapes). */
const PLAIN_WORD = /^[A-Za-z0-9_\-.,/:=@%+^#!~]+$/;

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
    const out = { commands: [] as string[][], redirects: false, separators: false };
    checkGaps(root, source, 'lines');
    for (const child of root.children) {
      if (!child.isNamed) {
        if (child.type === ';') out.separators = true;
        else if (child.type === '&') fail('`&` runs a command in the background');
        else fail(`cannot classify the token \`${child.type}\``);
        continue;
      }
      if (child.type === 'comment') continue;
      statement(child, out);
    }
    if (out.commands.length === 0) fail('no command');
    if (out.commands.length > 1) out.separators = true;
    return { ok: true, ...out };
  } catch (err) {
    if (err instanceof Unclassified) return { ok: false, reason: err.message };
    throw err;
  } finally {
    tree.delete();
  }
}

type Out = { commands: string[][]; redirects: boolean; separators: boolean };

function statement(node: Node, out: Out): void {
  switch (node.type) {
    case 'command':
      out.commands.push(command(node, out));
      return;
    case 'redirected_statement':
      redirected(node, out);
      return;
    case 'pipeline':
    case 'list':
      checkGaps(node, undefined, node.type === 'list' ? 'lines' : 'blanks');
      for (const child of node.children) {
        if (child.isNamed) statement(child, out);
        else if (['|', '&&', '||'].includes(child.type)) out.separators = true;
        else fail(`\`${child.type}\` is not judged safe`);
      }
      return;
    default:
      fail(describeNode(node));
  }
}

function redirected(node: Node, out: Out): void {
  checkGaps(node);
  let body: Node | undefined;
  for (const child of node.children) {
    if (child.type === 'file_redirect') redirect(child, out);
    else if (child.type === 'command' && !body) body = child;
    else fail(describeNode(child));
  }
  if (!body) fail('a redirection without a command');
  out.commands.push(command(body as Node, out));
}

/** `>/dev/null`, `2>/dev/null`, `&>/dev/null`, `2>&1`, `>&2`: nothing else is safe. */
function redirect(node: Node, out: Out): void {
  checkGaps(node);
  out.redirects = true;
  let op = '';
  let target: Node | undefined;
  for (const child of node.children) {
    if (child.type === 'file_descriptor') continue;
    if (!child.isNamed) op += child.type;
    else if (target) fail('a redirection with two targets');
    else target = child;
  }
  const text = target?.text ?? '';
  if (['>&', '<&'].includes(op) && target?.type === 'number' && /^[0-2]$/.test(text)) return;
  if (['>', '>>', '&>', '&>>'].includes(op) && target?.type === 'word' && text === '/dev/null')
    return;
  if (op === '<') fail('reading a file through `<` is not judged safe');
  if (op.startsWith('<<')) fail('a here-document or here-string is not judged safe');
  fail(`the redirection \`${node.text}\` writes or duplicates outside /dev/null`);
}

function command(node: Node, out: Out): string[] {
  checkGaps(node);
  const argv: string[] = [];
  for (const child of node.children) {
    if (child.type === 'file_redirect') {
      redirect(child, out);
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
  return argv;
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
  return name;
}

/** One argument's value, exactly as the shell would pass it, or a refusal. */
function word(node: Node): string {
  switch (node.type) {
    case 'word': {
      const text = node.text;
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
