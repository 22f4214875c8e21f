import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { BrainError } from '../src/index.js';
import { asMcpError } from './resources.js';
import type { ToolContext } from './tools/define.js';

export const ATTACHMENT_PREFIX = 'brain://attachment/';

/** The most bytes a read of the resource returns; larger files give their text only. */
export const MCP_READ_MAX_BYTES = 1024 * 1024;

/**
 * A file a message carries, as a resource (no tool, so no schema in every client's context):
 * its text as the index holds it, then its bytes (up to MCP_READ_MAX_BYTES) as a blob. The
 * content is what its sender wrote: untrusted.
 */
export function registerAttachmentResource(server: McpServer, ctx: ToolContext): void {
  server.registerResource(
    'attachment',
    new ResourceTemplate(`${ATTACHMENT_PREFIX}{sha256}`, { list: undefined }),
    {
      title: 'Attachment',
      description:
        'A file a message carries, by its sha256 (get_thread lists them): its text and its bytes (up to 1 MiB).',
    },
    (uri, vars): ReadResourceResult => {
      try {
        const ref = Array.isArray(vars.sha256) ? (vars.sha256[0] ?? '') : (vars.sha256 ?? '');
        const file = ctx.brain.messages.getAttachment(ref);
        if (!file) throw new BrainError('NOT_FOUND', `sha256: no file ${ref}`);
        const contents: ReadResourceResult['contents'] = [];
        if (file.text !== null)
          contents.push({ uri: uri.href, mimeType: 'text/plain', text: file.text });
        if (file.size <= MCP_READ_MAX_BYTES)
          contents.push({
            uri: uri.href,
            mimeType: file.media_type,
            blob: ctx.brain.messages.attachmentBytes(file.sha256).toString('base64'),
          });
        else if (file.text === null)
          throw new BrainError(
            'INVALID_INPUT',
            `sha256: ${file.name} is ${file.size} bytes, more than ${MCP_READ_MAX_BYTES} a read returns, and has no text (brain attachment ${file.sha256.slice(0, 12)} --out FILE)`,
          );
        return { contents };
      } catch (err) {
        throw asMcpError(err);
      }
    },
  );
}
