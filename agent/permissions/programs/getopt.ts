/**
 * Reading an argv the way GNU getopt_long reads it, so that the judge and the program agree on
 * which word is an option, which is an option's value and which is an operand. Only the options
 * a program declares are known; any other option, and any abbreviation of a long one, makes the
 * command not safe (getopt_long would accept `--expr` for `--expression`, but which option an
 * abbreviation names depends on the program's version, so only full names are judged).
 */

/** Whether an option takes a value: never, always (attached or the next word), or only attached. */
export type Arity = 'none' | 'required' | 'optional';

export interface OptionTable {
  /** By name (`-n`, `--quiet`): the canonical id (the first name of its group) and its arity. */
  byName: ReadonlyMap<string, { id: string; arity: Arity }>;
}

/** One option as given: its canonical id, the name written, and its value if it took one. */
export interface GivenOption {
  id: string;
  name: string;
  value: string | undefined;
}

export interface Parsed {
  options: GivenOption[];
  operands: string[];
}

/**
 * An option table from groups of names that mean the same option: `'-n --quiet --silent'`,
 * `'-e= --expression='` (`=`: takes a value), `'--color[=]'` (`[=]`: a value only when attached,
 * `--color=auto`). The first name is the id a check looks for.
 */
export function options(groups: readonly string[]): OptionTable {
  const byName = new Map<string, { id: string; arity: Arity }>();
  for (const group of groups) {
    const names = group.split(' ');
    const id = (names[0] ?? '').replace(/\[?=\]?$/, '');
    for (const raw of names) {
      const arity: Arity = raw.endsWith('[=]')
        ? 'optional'
        : raw.endsWith('=')
          ? 'required'
          : 'none';
      byName.set(raw.replace(/\[?=\]?$/, ''), { id, arity });
    }
  }
  return { byName };
}

/**
 * Walk `args` as getopt_long does: `--` ends the options; `--name=value` or `--name value`;
 * short options cluster (`-la`), and one that takes a value takes the rest of its word (`-n5`)
 * or else the next word (`-n 5`), whatever that word looks like. With `permute` (GNU's default)
 * operands and options may mix; without it (POSIXLY_CORRECT) the first operand ends the options.
 * A string is the reason the argv is not judged safe.
 */
export function getopt(
  args: readonly string[],
  table: OptionTable,
  permute = true,
): Parsed | string {
  const parsed: Parsed = { options: [], operands: [] };
  let onlyOperands = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (onlyOperands || arg === '-' || !arg.startsWith('-')) {
      parsed.operands.push(arg);
      if (!permute) onlyOperands = true;
      continue;
    }
    if (arg === '--') {
      onlyOperands = true;
      continue;
    }
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = eq === -1 ? arg : arg.slice(0, eq);
      const def = table.byName.get(name);
      if (!def) return unknownLong(name, table);
      let value: string | undefined = eq === -1 ? undefined : arg.slice(eq + 1);
      if (def.arity === 'none' && value !== undefined) return `\`${name}\` takes no value`;
      if (def.arity === 'required' && value === undefined) {
        if (i + 1 >= args.length) return `\`${name}\` needs a value`;
        value = args[++i];
      }
      parsed.options.push({ id: def.id, name, value });
      continue;
    }
    for (let j = 1; j < arg.length; j++) {
      const name = `-${arg[j]}`;
      const def = table.byName.get(name);
      if (!def)
        return `the option \`${name}\`${arg.length > 2 ? ` (in \`${arg}\`)` : ''} is not on the list`;
      if (def.arity === 'none') {
        parsed.options.push({ id: def.id, name, value: undefined });
        continue;
      }
      let value: string | undefined = arg.slice(j + 1);
      if (value === '') {
        if (def.arity === 'optional') value = undefined;
        else if (i + 1 >= args.length) return `\`${name}\` needs a value`;
        else value = args[++i];
      }
      parsed.options.push({ id: def.id, name, value });
      break;
    }
  }
  return parsed;
}

function unknownLong(name: string, table: OptionTable): string {
  const full = [...table.byName.keys()].filter((n) => n.startsWith(name) && n.startsWith('--'));
  if (full.length > 0)
    return `\`${name}\` abbreviates ${full.map((n) => `\`${n}\``).join(' or ')}: write options in full`;
  return `the option \`${name}\` is not on the list`;
}

/** The values given for an option id, in order. */
export function valuesOf(parsed: Parsed, id: string): string[] {
  return parsed.options.filter((o) => o.id === id).map((o) => o.value ?? '');
}

/** Whether any of the ids was given. */
export function has(parsed: Parsed, ...ids: string[]): boolean {
  return parsed.options.some((o) => ids.includes(o.id));
}
