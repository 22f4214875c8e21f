import { z } from 'zod';
import { cutVisibly, escapeInvisible, shownValue } from '../../src/index.js';
import type { Tool } from '../tools/types.js';
import { workspacePath } from './always.js';

/**
 * The one text every channel shows for a call it asks about, and what the brain records: the
 * tool, then every argument by name in a fixed order (the schema's, then the rest sorted), paths
 * resolved against the workspace, every hidden character escaped, long values cut where the cut
 * shows. Nothing the model chooses (argument order, a newline, an escape sequence, a bidi
 * override) can make it show one call and run another.
 */

export interface DescribeOptions {
  workspace: string;
}

/** What describing needs of a tool: its name, and its schema for the order of its arguments. */
export type DescribedTool = Pick<Tool, 'name'> & Partial<Pick<Tool, 'schema' | 'inputSchema'>>;

/**
 * The most characters of a description: with the reason and the rule "always" would store it
 * fits one Discord message (2,000), so no channel has to cut what the owner decides on.
 */
export const DISPLAY_MAX = 1000;
/** The most characters of one argument's value. */
const VALUE_MAX = 700;
/** The most arguments shown; the rest are counted. */
const MAX_ARGUMENTS = 16;
const KEY_MAX = 60;
const REASON_MAX = 300;

/** Arguments that name a path, per tool: shown where they point, not as given. */
const PATH_ARGS: Record<string, readonly string[]> = {
  write_file: ['path'],
  read_file: ['path'],
  list_files: ['path'],
  run_command: ['cwd'],
};

/** The input the tool will run with: the schema's output when it takes the input, else as given. */
function argumentsOf(tool: DescribedTool, input: unknown): Record<string, unknown> {
  let value = input;
  if (tool.schema) {
    const parsed = tool.schema.safeParse(input);
    if (parsed.success) value = parsed.data;
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value))
    return value as Record<string, unknown>;
  return value === undefined ? {} : { input: value };
}

/** The schema's order of the arguments (a zod object's shape, or the JSON Schema's properties). */
function schemaOrder(tool: DescribedTool): string[] {
  if (tool.schema instanceof z.ZodObject) return Object.keys(tool.schema.shape);
  const properties = tool.inputSchema?.properties;
  return properties && typeof properties === 'object' ? Object.keys(properties) : [];
}

function orderedKeys(tool: DescribedTool, args: Record<string, unknown>): string[] {
  const present = Object.keys(args).filter((k) => args[k] !== undefined);
  const known = schemaOrder(tool).filter((k) => present.includes(k));
  const rest = present.filter((k) => !known.includes(k)).sort();
  return [...known, ...rest];
}

/** JSON with every object's keys sorted, so equal values read the same. */
function canonicalJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, v: unknown) =>
      v && typeof v === 'object' && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
        : v,
    ) ?? String(value)
  );
}

/** One value as shown: escaped, cut to `max`, quoted when empty or its ends are spaces. */
function shownArgument(value: unknown, max: number): string {
  if (typeof value !== 'string') return shownValue(canonicalJson(value), max);
  const shown = shownValue(value, max);
  return value === '' || /^ | $/.test(value) ? `"${shown}"` : shown;
}

/** The text of a call for the owner (see the module's comment); one line per argument. */
export function describeCall(
  tool: DescribedTool | string,
  input: unknown,
  options: DescribeOptions,
): string {
  const t: DescribedTool = typeof tool === 'string' ? { name: tool } : tool;
  const name = shownValue(t.name, KEY_MAX);
  const args = argumentsOf(t, input);
  const keys = orderedKeys(t, args);
  if (keys.length === 0) return `${name} (no arguments)`;
  const paths = Object.hasOwn(PATH_ARGS, t.name) ? PATH_ARGS[t.name]! : [];
  const lines: string[] = [];
  let used = name.length;
  let shownCount = 0;
  for (const key of keys) {
    if (shownCount === MAX_ARGUMENTS || used >= DISPLAY_MAX - 80) break;
    const label = `${shownValue(key, KEY_MAX)}: `;
    const budget = Math.max(40, Math.min(VALUE_MAX, DISPLAY_MAX - used - label.length - 40));
    const value = args[key];
    let text: string;
    if (paths.includes(key) && typeof value === 'string' && value !== '') {
      const where = workspacePath(value, options.workspace);
      text = shownArgument(where, budget);
      if (where !== value) text += ` (given as ${shownArgument(value, Math.max(40, budget / 2))})`;
    } else text = shownArgument(value, budget);
    lines.push(label + text);
    used += label.length + text.length + 3;
    shownCount++;
  }
  const left = keys.length - shownCount;
  if (left > 0) lines.push(`… [cut: ${left} more argument${left === 1 ? '' : 's'}]`);
  const text = [`${name} ${lines[0]!}`, ...lines.slice(1).map((l) => `  ${l}`)].join('\n');
  return cutVisibly(text, DISPLAY_MAX);
}

/** The first line of a description: a one-line summary of the call. */
export const firstLine = (display: string) => display.split('\n', 1)[0]!;

/** What a prompt needs: the call as described, why it asks, and the rule "always" would store. */
export interface PromptParts {
  display: string;
  reason: string;
  /** The rule as it will match (`run_command: git log -5 (exactly)`); absent: no "always". */
  alwaysText?: string | undefined;
}

/**
 * The whole question as every channel shows it (each wraps it in its own code block): the call,
 * why it is asked, and what "always" would allow, or that it is not offered.
 */
export function promptText(parts: PromptParts): string {
  const why = `why: ${shownValue(parts.reason, REASON_MAX)}`;
  const always = parts.alwaysText
    ? `always allows: ${escapeInvisible(parts.alwaysText)}`
    : 'always: not offered for this call (approve once or deny)';
  return `${parts.display}\n${why}\n${always}`;
}
