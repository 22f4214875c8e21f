import { basename } from 'node:path';
import { z } from 'zod';
import { BrainError } from '../../src/index.js';
import { PathRefused, makeRoots, openConfined, resolveExisting, shown } from './fs-roots.js';
import { fileError, type FileToolOptions } from './read-file.js';
import type { Tool } from './types.js';

const input = z.strictObject({
  path: z.string().min(1, 'must not be empty').max(4096),
  caption: z.string().max(1000).optional().describe('a line to go with the file'),
});

/**
 * `send_file`: a file from the workspace (or another allowed folder) to the owner, in the chat the
 * turn answers, kept with the turn's reply in the brain. The path is confined as read_file's is
 * (symlinks followed, the result inside a root; FIFOs, sockets and devices refused before they
 * are opened) and the file is read from the one descriptor that was checked, up to the brain's
 * per-file limit. It sends data out of the machine, to the owner only: the policy asks for it as
 * for any tool that acts, and in a turn that has taken in foreign content it always asks
 * (agent/permissions/trust.ts), so a prompt-injected turn cannot pick a file and send it unseen.
 */
export function createSendFileTool(options: FileToolOptions = {}): Tool<z.output<typeof input>> {
  return {
    name: 'send_file',
    description:
      'Send a file from the workspace (or another allowed folder) to the owner in this chat, with an optional caption.',
    schema: input,
    readOnly: false,
    run: async (args, ctx) => {
      if (!ctx.sendFile)
        return {
          content: 'this conversation cannot carry files; say where the file is',
          isError: true,
        };
      const roots = await makeRoots(ctx.workspace, options.roots);
      const max = ctx.brain.messages.maxAttachmentBytes;
      try {
        const real = await resolveExisting(roots, args.path);
        const fh = await openConfined(roots, real);
        let data: Buffer;
        try {
          const st = await fh.stat();
          if (st.isDirectory())
            return { content: `${args.path} is a folder; send a file`, isError: true };
          if (!st.isFile()) return { content: `${args.path} is not a regular file`, isError: true };
          if (st.size > max)
            return {
              content: `${shown(roots, real)} is ${st.size} bytes; files of up to ${max} bytes can be sent`,
              isError: true,
            };
          data = await fh.readFile();
        } finally {
          await fh.close();
        }
        if (data.length > max)
          return { content: `${shown(roots, real)} grew past ${max} bytes`, isError: true };
        const name = basename(real);
        const [prepared] = await ctx.brain.messages.attach([{ name, data }]);
        await ctx.sendFile({
          name,
          path: real,
          data,
          mediaType: prepared!.media_type,
          caption: args.caption,
          prepared: prepared!,
        });
        return {
          content: `sent ${shown(roots, real)} (${prepared!.media_type}, ${data.length} bytes) to the owner`,
        };
      } catch (err) {
        if (err instanceof BrainError) return { content: err.message, isError: true };
        if (err instanceof PathRefused) return fileError(args.path, err);
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== undefined) return fileError(args.path, err);
        return {
          content: `could not send ${args.path}: ${(err as Error).message}`,
          isError: true,
        };
      }
    },
  };
}
