import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError, type ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { BrainError, idKind, isBrainError } from '../src/index.js';
import type { ToolContext } from './tools/define.js';

export const INBOX_PREFIX = 'brain://inbox/';
export const THREAD_PREFIX = 'brain://thread/';
export const KNOWLEDGE_PREFIX = 'brain://knowledge/';

const JSON_TYPE = 'application/json';

/**
 * Resources: the caller's inbox (a peek: reading it marks nothing read), a thread, a piece of
 * knowledge with its provenance. Only the caller's own inbox is readable.
 */
export function registerResources(server: McpServer, ctx: ToolContext): void {
  server.registerResource(
    'inbox',
    new ResourceTemplate(`${INBOX_PREFIX}{agent}`, {
      list: () => ({
        resources: [
          {
            uri: `${INBOX_PREFIX}${ctx.caller}`,
            name: `inbox of ${ctx.caller}`,
            mimeType: JSON_TYPE,
          },
        ],
      }),
    }),
    {
      title: 'Inbox',
      description: 'Your unread messages (reading does not mark them read). Subscribe for news.',
      mimeType: JSON_TYPE,
    },
    (uri, vars) =>
      read(uri, () => {
        const agent = ownInbox(ctx, one(vars.agent));
        const { unread } = ctx.brain.messages.poll(agent);
        return { agent, unread, messages: ctx.brain.messages.peek({ agent, limit: 100 }) };
      }),
  );

  server.registerResource(
    'thread',
    new ResourceTemplate(`${THREAD_PREFIX}{thread_id}`, { list: undefined }),
    {
      title: 'Thread',
      description: "A thread's messages with receipts and acks (first 200). Subscribe for news.",
      mimeType: JSON_TYPE,
    },
    (uri, vars) =>
      read(uri, () => ctx.brain.messages.thread({ thread_id: one(vars.thread_id), limit: 200 })),
  );

  server.registerResource(
    'knowledge',
    new ResourceTemplate(`${KNOWLEDGE_PREFIX}{id}`, { list: undefined }),
    {
      title: 'Knowledge',
      description: 'A memory (stm_…) or atom (atm_…) with the message and thread it came from.',
      mimeType: JSON_TYPE,
    },
    (uri, vars) =>
      read(uri, () => {
        const id = one(vars.id);
        const kind = idKind(id);
        if (kind !== 'stm' && kind !== 'atom')
          throw new BrainError('INVALID_INPUT', 'id: must be an STM or atom id (stm_…, atm_…)');
        return ctx.brain.knowledge.provenance({ id });
      }),
  );
}

/** The agent of an inbox URI, if it is the caller's; an error otherwise. */
export function ownInbox(ctx: ToolContext, agent: string): string {
  const me = ctx.caller;
  if (agent !== me)
    throw new BrainError('INVALID_INPUT', `agent: you are ${me}; only your own inbox is readable`);
  return agent;
}

function one(value: string | string[] | undefined): string {
  const raw = Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
  try {
    return decodeURIComponent(raw);
  } catch {
    // URIError: a bad %-escape. The caller's mistake, said as such (not an internal error).
    throw new BrainError('INVALID_INPUT', 'uri: has a malformed %-escape');
  }
}

function read(uri: URL, load: () => unknown): ReadResourceResult {
  try {
    const value = load();
    return {
      contents: [{ uri: uri.href, mimeType: JSON_TYPE, text: JSON.stringify(value) }],
    };
  } catch (err) {
    throw asMcpError(err);
  }
}

/** Brain errors of a request (not a tool call) travel as JSON-RPC errors with the message. */
export function asMcpError(err: unknown): unknown {
  if (isBrainError(err))
    return new McpError(ErrorCode.InvalidParams, `${err.code}: ${err.message}`);
  return err;
}
