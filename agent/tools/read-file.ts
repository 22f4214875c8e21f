import { z } from 'zod';
import { PathRefused, makeRoots, openConfined, resolveExisting, shown } from './fs-roots.js';
import type { Tool } from './types.js';

/** At most this many bytes of text come back from one call. */
export const READ_MAX_BYTES = 256 * 1024;

const input = z.strictObject({
  path: z.string().min(1, 'must not be empty').max(4096),
  offset: z.number().int().min(1).optional().describe('first line to read, from 1'),
  limit: z.number().int().min(1).max(100_000).optional().describe('how many lines'),
});

export interface FileToolOptions {
  /** Folders besides the workspace the file tools may use. */
  roots?: readonly string[];
}

/**
 * True when the bytes look like text: no NUL and valid UTF-8. `partial`: the sample is the start
 * of a longer file, so a character cut at its end is not held against it.
 */
export function looksLikeText(buf: Buffer, partial = false): boolean {
  if (buf.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(buf, { stream: partial });
    return true;
  } catch {
    return false;
  }
}

/** `read_file`: lines of a text file inside the roots; a binary file is described, not shown. */
export function createReadFileTool(options: FileToolOptions = {}): Tool<z.output<typeof input>> {
  return {
    name: 'read_file',
    description:
      'Read a text file in the workspace (or another allowed folder). Lines numbered from 1; offset and limit pick lines. At most 256 KiB per call.',
    schema: input,
    readOnly: true,
    run: async (args, ctx) => {
      const roots = await makeRoots(ctx.workspace, options.roots);
      try {
        const real = await resolveExisting(roots, args.path);
        const fh = await openConfined(roots, real);
        try {
          const st = await fh.stat();
          if (st.isDirectory())
            return { content: `${args.path} is a folder; use list_files`, isError: true };
          if (!st.isFile()) return { content: `${args.path} is not a regular file`, isError: true };
          const sample = Buffer.alloc(Math.min(st.size, 8192));
          await fh.read(sample, 0, sample.length, 0);
          if (!looksLikeText(sample, sample.length < st.size))
            return { content: `${shown(roots, real)}: binary file, ${st.size} bytes; not shown` };
          const text = await fh.readFile('utf8');
          const lines = text.split('\n');
          if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
          const first = (args.offset ?? 1) - 1;
          const last = Math.min(lines.length, first + (args.limit ?? lines.length));
          let out = '';
          let i = first;
          for (; i < last; i++) {
            const line = `${i + 1}\t${lines[i]}\n`;
            if (Buffer.byteLength(out) + Buffer.byteLength(line) > READ_MAX_BYTES) break;
            out += line;
          }
          if (first >= lines.length)
            return {
              content: `${shown(roots, real)} has ${lines.length} lines; nothing at line ${first + 1}`,
            };
          if (i < lines.length)
            out += `[lines ${first + 1}-${i} of ${lines.length}; continue with offset ${i + 1}]\n`;
          return { content: out };
        } finally {
          await fh.close();
        }
      } catch (err) {
        return fileError(args.path, err);
      }
    },
  };
}

/** A refused or failed file operation as an error result the model reads. */
export function fileError(path: string, err: unknown): { content: string; isError: true } {
  if (err instanceof PathRefused) return { content: `refused: ${err.message}`, isError: true };
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ELOOP') return { content: `refused: ${path} is a symlink`, isError: true };
  if (code === 'ENOENT') return { content: `${path} does not exist`, isError: true };
  if (code === 'EACCES') return { content: `${path}: permission denied`, isError: true };
  return { content: `${path}: ${err instanceof Error ? err.message : String(err)}`, isError: true };
}
