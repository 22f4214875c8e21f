import { randomBytes } from 'node:crypto';
import { constants, promises as fs } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import { insideRoots, makeRoots, PathRefused, resolveNew, shown, specialKind } from './fs-roots.js';
import { fileError, type FileToolOptions } from './read-file.js';
import type { Tool } from './types.js';

export const WRITE_MAX_BYTES = 1024 * 1024;

const input = z.strictObject({
  path: z.string().min(1, 'must not be empty').max(4096),
  content: z
    .string()
    .refine((s) => Buffer.byteLength(s) <= WRITE_MAX_BYTES, 'must be at most 1 MiB'),
});

/**
 * `write_file`: the whole content of a file inside the roots, written atomically: a temp file in
 * the same folder (created exclusively, not following links), fsynced, then renamed over the
 * target, so a reader sees the old file or the new one, never half of it.
 */
export function createWriteFileTool(options: FileToolOptions = {}): Tool<z.output<typeof input>> {
  return {
    name: 'write_file',
    description:
      'Write a whole text file in the workspace (or another allowed folder), replacing it if it exists. At most 1 MiB. The folder must exist.',
    schema: input,
    readOnly: false,
    run: async (args, ctx) => {
      const roots = await makeRoots(ctx.workspace, options.roots);
      let tmp: string | undefined;
      try {
        const target = await resolveNew(roots, args.path);
        const st = await fs.lstat(target).catch(() => null);
        if (st && st.isDirectory()) return { content: `${args.path} is a folder`, isError: true };
        // A FIFO, socket or device there is something else's (a server's socket, a pipe someone
        // reads): it is not replaced by a file.
        const kind = st && specialKind(st);
        if (kind) return { content: `refused: ${args.path} is ${kind}, not a file`, isError: true };
        tmp = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
        const fh = await fs.open(
          tmp,
          constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
          st ? st.mode & 0o777 : 0o644,
        );
        try {
          // The folder could have been swapped for a link since the check: look again.
          const where = await fs.readlink(`/proc/self/fd/${fh.fd}`).catch(() => tmp!);
          if (!insideRoots(roots, dirname(where)))
            throw new PathRefused(`${args.path} is outside the allowed folders`);
          await fh.writeFile(args.content, 'utf8');
          await fh.sync();
        } finally {
          await fh.close();
        }
        await fs.rename(tmp, target);
        tmp = undefined;
        const dir = await fs.open(dirname(target), constants.O_RDONLY).catch(() => null);
        if (dir)
          await dir
            .sync()
            .catch(() => {})
            .finally(() => dir.close());
        return {
          content: `wrote ${Buffer.byteLength(args.content)} bytes to ${shown(roots, target)}`,
        };
      } catch (err) {
        return fileError(args.path, err);
      } finally {
        if (tmp) await fs.rm(tmp, { force: true }).catch(() => {});
      }
    },
  };
}
