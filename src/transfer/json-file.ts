import { readFileSync, statSync } from 'node:fs';
import { BrainError } from '../errors.js';

/**
 * Why a text is not JSON, in words that never quote the text: V8's own message can carry an
 * excerpt of the file ("Unexpected token 'r', "root:x:0:0"..."), which must not reach a log or
 * an MCP client when someone points an import at the wrong file.
 */
export function jsonProblem(raw: string, err: unknown): string {
  const message = (err as Error).message ?? '';
  if (/Unexpected end of JSON input/.test(message)) return 'it ends too early (truncated?)';
  const at = /at position (\d+)/.exec(message);
  const what = message.replace(/\s*(in JSON )?at position \d+.*$/s, '');
  if (at && !/"/.test(what)) return `${what} at ${lineColumn(raw, Number(at[1]))}`;
  return 'it has an unexpected character (is it a JSON file?)';
}

function lineColumn(raw: string, position: number): string {
  const before = raw.slice(0, position);
  const line = before.split('\n').length;
  const column = position - before.lastIndexOf('\n');
  return `line ${line}, column ${column}`;
}

/** Read and parse a JSON file; a missing file is NOT_FOUND, bad JSON INVALID_INPUT, naming `what`. */
export function readJsonFile(path: string, what: string): unknown {
  let raw: string;
  try {
    // Only regular files: /dev/zero or a FIFO would be read forever.
    const stat = statSync(path);
    if (stat.isDirectory())
      throw new BrainError('INVALID_INPUT', `${what}: ${path} is a directory, not a file`);
    if (!stat.isFile())
      throw new BrainError('INVALID_INPUT', `${what}: ${path} is not a regular file`);
    raw = readFileSync(path, 'utf8');
  } catch (err) {
    if (err instanceof BrainError) throw err;
    throw new BrainError('NOT_FOUND', `${what}: cannot read ${path}: ${describeFsError(err)}`, {
      cause: err,
    });
  }
  raw = raw.replace(/^\uFEFF/, '');
  try {
    return JSON.parse(raw);
  } catch (err) {
    throw new BrainError(
      'INVALID_INPUT',
      `${what}: ${path} is not valid JSON: ${jsonProblem(raw, err)}`,
      { cause: err },
    );
  }
}

/** "no such file" rather than "ENOENT". */
export function describeFsError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  const known: Record<string, string> = {
    ENOENT: 'no such file',
    EACCES: 'permission denied',
    EISDIR: 'it is a directory',
    ENOTDIR: 'a part of the path is not a directory',
  };
  return (code && known[code]) ?? (err as Error).message;
}
