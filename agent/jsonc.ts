/**
 * JSON with comments (`//` to the end of the line, `/* … *\/`) and trailing commas, as editors'
 * settings files allow. Comments become spaces (newlines kept), so a JSON error's line and column
 * still point into the file as written; nothing inside a string is touched.
 */
export function stripJsonComments(source: string): string {
  let out = '';
  let i = 0;
  const n = source.length;
  while (i < n) {
    const c = source[i]!;
    if (c === '"') {
      const end = stringEnd(source, i);
      out += source.slice(i, end);
      i = end;
    } else if (c === '/' && source[i + 1] === '/') {
      while (i < n && source[i] !== '\n') {
        out += ' ';
        i++;
      }
    } else if (c === '/' && source[i + 1] === '*') {
      const close = source.indexOf('*/', i + 2);
      const end = close === -1 ? n : close + 2;
      out += source.slice(i, end).replace(/[^\n]/g, ' ');
      i = end;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** Remove commas that only whitespace separates from a closing `}` or `]` (comments already gone). */
export function stripTrailingCommas(source: string): string {
  let out = '';
  let i = 0;
  const n = source.length;
  while (i < n) {
    const c = source[i]!;
    if (c === '"') {
      const end = stringEnd(source, i);
      out += source.slice(i, end);
      i = end;
      continue;
    }
    if (c === ',') {
      let j = i + 1;
      while (j < n && /\s/.test(source[j]!)) j++;
      if (source[j] === '}' || source[j] === ']') {
        out += ' ';
        i++;
        continue;
      }
    }
    out += c;
    i++;
  }
  return out;
}

/** The index just past the string starting at `start` (a `"`), escapes included. */
function stringEnd(source: string, start: number): number {
  let i = start + 1;
  while (i < source.length) {
    const c = source[i];
    if (c === '\\') i += 2;
    else if (c === '"') return i + 1;
    else if (c === '\n')
      return i; // unterminated: let JSON.parse report it
    else i++;
  }
  return i;
}

/** Parse JSONC text; a syntax error says where, as `line L, column C`. */
export function parseJsonc(source: string): unknown {
  const text = stripTrailingCommas(stripJsonComments(source));
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    const message = (err as Error).message;
    const at = /position (\d+)/.exec(message);
    if (!at) throw new SyntaxError(message);
    const pos = Number(at[1]);
    const before = text.slice(0, pos).split('\n');
    const where = `line ${before.length}, column ${before.at(-1)!.length + 1}`;
    throw new SyntaxError(`${message.replace(/ in JSON at position \d+.*$/, '')} at ${where}`);
  }
}
