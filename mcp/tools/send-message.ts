import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import {
  BrainError,
  omit,
  sendInput,
  toZod,
  type AttachmentInput,
  type SendInput,
} from '../../src/index.js';
import { defineTool, type ToolContext } from './define.js';

/**
 * The most bytes a file sent inline (base64) may have: its request stays under brain serve's
 * 4 MiB body limit. Larger files go by path.
 */
export const MCP_INLINE_MAX_BYTES = 2 * 1024 * 1024;

// Plain types only (portable across clients); the sizes are checked in fileOf and by the brain.
const attachment = z.strictObject({
  path: z.string().optional(),
  data: z.string().optional(),
  name: z.string().optional(),
  media_type: z.string().optional(),
});

export function registerSendMessage(server: McpServer, ctx: ToolContext): void {
  defineTool(server, ctx, 'send_message', {
    title: 'Send message',
    description:
      'Send a message as yourself to one agent, or to every other agent when `to` is omitted. Starts a thread unless `thread` or `reply_to` is given. May attach files.',
    // The sender is the session's agent; metadata and `at` are for importers, not agents.
    input: toZod(omit(sendInput, ['from', 'metadata', 'at']), z).extend({
      attachments: z
        .array(attachment)
        .optional()
        .describe('Files: {path} under the attach roots, or {name, data: base64 ≤2 MiB}'),
    }),
    output: z.looseObject({
      id: z.string(),
      thread_id: z.string(),
      created_at: z.string(),
      recipients: z.number(),
    }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    async run(input) {
      // toZod's object is untyped: the fields are the send's, checked again by the brain.
      const { attachments, ...args } = input as { attachments?: AttachmentArg[] } & Omit<
        SendInput,
        'from'
      >;
      const files = (attachments ?? []).map((a, i) => fileOf(ctx, a, `attachments.${i}`));
      const r = await ctx.brain.messages.sendFiles({ ...args, from: ctx.agent() }, files);
      const to = args.to ?? `all (${r.recipients} agents)`;
      const attached = files.length ? ` with ${files.map((f) => f.name).join(', ')}` : '';
      return {
        data: {
          id: r.id,
          thread_id: r.thread_id,
          created_at: r.created_at,
          recipients: r.recipients,
        },
        text: `sent ${r.id} to ${to} in thread ${r.thread_id}${attached}`,
      };
    },
  });
}

type AttachmentArg = z.output<typeof attachment>;

function fileOf(ctx: ToolContext, a: AttachmentArg, field: string): AttachmentInput {
  if ((a.path === undefined) === (a.data === undefined))
    throw new BrainError('INVALID_INPUT', `${field}: give either path or data`);
  if (a.path !== undefined) {
    const file = ctx.brain.messages.readAttachmentFile(a.path, {
      roots: ctx.attachRoots,
      field: `${field}.path`,
    });
    return { ...file, name: a.name ?? file.name, media_type: a.media_type };
  }
  if (a.name === undefined)
    throw new BrainError('INVALID_INPUT', `${field}.name: is required with data`);
  if (a.data!.length > Math.ceil(MCP_INLINE_MAX_BYTES / 3) * 4 + 4)
    throw new BrainError(
      'INVALID_INPUT',
      `${field}.data: files sent inline take at most ${MCP_INLINE_MAX_BYTES} bytes (give a path instead)`,
    );
  if (!/^[A-Za-z0-9+/\s]*={0,2}\s*$/.test(a.data!))
    throw new BrainError('INVALID_INPUT', `${field}.data: must be base64`);
  const data = Buffer.from(a.data!, 'base64');
  if (data.length > MCP_INLINE_MAX_BYTES)
    throw new BrainError(
      'INVALID_INPUT',
      `${field}.data: is ${data.length} bytes; files sent inline take at most ${MCP_INLINE_MAX_BYTES} bytes (give a path instead)`,
    );
  return { name: a.name, data, media_type: a.media_type };
}
