import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { estimateTokens } from '../history.js';
import type { Tool, ToolOutput } from '../tools/types.js';
import type { ServerConnection } from './connection.js';

/**
 * An MCP server's tool as one of the model's tools: named `mcp__<server>__<tool>`, described and
 * shaped by the server's own JSON Schema (the server judges its input, so ours lets it through),
 * read-only when the server annotates it `readOnlyHint`, and answered as untrusted data.
 */

/** The longest tool name the model APIs take. */
const MAX_NAME = 64;

/** `mcp__<server>__<tool>`, with characters the APIs refuse made `_` and long names shortened. */
export function exposedName(server: string, tool: string): string {
  const name = `mcp__${server}__${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  if (name.length <= MAX_NAME) return name;
  const hash = createHash('sha256').update(`${server}\0${tool}`).digest('hex').slice(0, 8);
  return `${name.slice(0, MAX_NAME - 9)}_${hash}`;
}

/** The input schema as the model gets it: always an object schema. */
export function inputSchemaOf(tool: McpTool): Record<string, unknown> {
  const schema = { ...(tool.inputSchema as Record<string, unknown>) };
  delete schema.$schema;
  return { ...schema, type: 'object' };
}

const DESCRIPTION_MAX = 1024;

export function descriptionOf(tool: McpTool, server: string): string {
  const text = (tool.description ?? tool.title ?? tool.annotations?.title ?? '').trim();
  const base = text || `${tool.name} (from the MCP server ${server})`;
  return base.length > DESCRIPTION_MAX ? `${base.slice(0, DESCRIPTION_MAX - 1)}…` : base;
}

/** Tokens the model pays for one tool's schema (characters / 4, as elsewhere in agent/). */
export function schemaTokens(tool: Pick<Tool, 'name' | 'description' | 'inputSchema'>): number {
  return estimateTokens(
    JSON.stringify({
      name: tool.name,
      description: tool.description,
      input_schema: tool.inputSchema,
    }),
  );
}

const passThrough = z.any();

export function toModelTool(connection: ServerConnection, tool: McpTool): Tool {
  return {
    name: exposedName(connection.name, tool.name),
    description: descriptionOf(tool, connection.name),
    schema: passThrough,
    inputSchema: inputSchemaOf(tool),
    readOnly: tool.annotations?.readOnlyHint === true,
    async run(input, ctx) {
      try {
        return resultToOutput(await connection.call(tool.name, input, ctx.signal));
      } catch (err) {
        // A timeout, a server that died mid-call, or the server's own protocol error: the model
        // reads it as a failed call (the server's words stay marked as data).
        const message = err instanceof Error ? err.message : String(err);
        return { content: `the call failed: ${message}`, isError: true, untrusted: true };
      }
    },
  };
}

/** Bytes of base64 data. */
function decodedSize(base64: string): number {
  const pad = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((base64.length * 3) / 4) - pad);
}

function size(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`;
}

/**
 * A tool's answer as the model reads it: text as it is; images, audio and resources described
 * (type, MIME type, size, URI) rather than dropped; `isError` kept; all of it untrusted.
 */
export function resultToOutput(result: CallToolResult): ToolOutput {
  const parts: string[] = [];
  for (const block of result.content ?? []) {
    switch (block.type) {
      case 'text':
        parts.push(block.text);
        break;
      case 'image':
      case 'audio':
        parts.push(`[${block.type}: ${block.mimeType}, ${size(decodedSize(block.data))}]`);
        break;
      case 'resource': {
        const r = block.resource;
        const mime = r.mimeType ? `, ${r.mimeType}` : '';
        if ('text' in r && typeof r.text === 'string')
          parts.push(`[resource: ${r.uri}${mime}, ${size(Buffer.byteLength(r.text))}]\n${r.text}`);
        else if ('blob' in r && typeof r.blob === 'string')
          parts.push(`[resource: ${r.uri}${mime}, ${size(decodedSize(r.blob))}]`);
        else parts.push(`[resource: ${r.uri}${mime}]`);
        break;
      }
      case 'resource_link':
        parts.push(
          `[resource link: ${block.uri}${block.name ? ` (${block.name})` : ''}${block.mimeType ? `, ${block.mimeType}` : ''}]`,
        );
        break;
      default:
        parts.push(`[${(block as { type: string }).type} content]`);
    }
  }
  if (parts.length === 0 && result.structuredContent !== undefined)
    parts.push(JSON.stringify(result.structuredContent));
  const content = parts.join('\n') || '(no content)';
  return { content, untrusted: true, ...(result.isError ? { isError: true } : {}) };
}
