import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { insideRoots, makeRoots, resolveExisting, shown } from './fs-roots.js';
import { fileError, type FileToolOptions } from './read-file.js';
import type { Tool } from './types.js';

export const LIST_MAX_ENTRIES = 500;

const input = z.strictObject({
  path: z.string().min(1, 'must not be empty').max(4096).describe('a folder; . for the workspace'),
});

/** `list_files`: a folder's entries with their type and size, at most 500, names sorted. */
export function createListFilesTool(options: FileToolOptions = {}): Tool<z.output<typeof input>> {
  return {
    name: 'list_files',
    description:
      'List a folder in the workspace (or another allowed folder): each entry with its type (file, dir, link) and size in bytes. At most 500 entries.',
    schema: input,
    readOnly: true,
    run: async (args, ctx) => {
      const path = args.path;
      const roots = await makeRoots(ctx.workspace, options.roots);
      try {
        const real = await resolveExisting(roots, path);
        const st = await fs.stat(real);
        if (!st.isDirectory()) return { content: `${path} is not a folder`, isError: true };
        const names = (await fs.readdir(real)).sort();
        const lines: string[] = [];
        for (const name of names.slice(0, LIST_MAX_ENTRIES)) {
          const e = await fs.lstat(join(real, name)).catch(() => null);
          if (!e) continue;
          if (e.isSymbolicLink()) {
            const to = await fs.realpath(join(real, name)).catch(() => null);
            lines.push(
              `link\t-\t${name}${to && insideRoots(roots, to) ? '' : ' (points outside)'}`,
            );
          } else if (e.isDirectory()) lines.push(`dir\t-\t${name}/`);
          else if (e.isFile()) lines.push(`file\t${e.size}\t${name}`);
          else lines.push(`other\t-\t${name}`);
        }
        const head = `${shown(roots, real)}: ${names.length} entries`;
        const more = names.length > LIST_MAX_ENTRIES ? `\n[first ${LIST_MAX_ENTRIES} shown]` : '';
        return { content: `${head}\n${lines.join('\n')}${more}` };
      } catch (err) {
        return fileError(path, err);
      }
    },
  };
}
