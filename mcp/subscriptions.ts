import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { BrainError, idKind, type ArrivedMessage, type BrainWatcher } from '../src/index.js';
import type { Logger } from './log.js';
import { INBOX_PREFIX, THREAD_PREFIX, asMcpError, ownInbox } from './resources.js';
import type { ToolContext } from './tools/define.js';

/**
 * resources/subscribe for `brain://inbox/{me}` and `brain://thread/{id}`: when the watcher sees a
 * message for me (or in the thread) arrive, from this process or another, the client gets
 * notifications/resources/updated. Call before connecting. Returns the cleanup.
 */
export function registerSubscriptions(
  server: McpServer,
  ctx: ToolContext,
  watcher: BrainWatcher,
  log: Logger,
): () => void {
  server.server.registerCapabilities({ resources: { subscribe: true } });
  const uris = new Set<string>();
  let stopWatching: (() => void) | undefined;

  const onArrived = (messages: ArrivedMessage[]) => {
    const updated = new Set<string>();
    const inbox = `${INBOX_PREFIX}${ctx.caller}`;
    for (const m of messages) {
      if (uris.has(inbox) && m.recipients.includes(ctx.caller)) updated.add(inbox);
      const thread = `${THREAD_PREFIX}${m.thread_id}`;
      if (uris.has(thread)) updated.add(thread);
    }
    for (const uri of updated) {
      server.server
        .sendResourceUpdated({ uri })
        .catch((err: unknown) => log.warn(`could not notify ${uri}: ${(err as Error).message}`));
    }
  };

  server.server.setRequestHandler(SubscribeRequestSchema, (request) => {
    try {
      const uri = subscribable(ctx, request.params.uri);
      uris.add(uri);
      stopWatching ??= watcher.onMessages(onArrived);
      return {};
    } catch (err) {
      throw asMcpError(err);
    }
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    uris.delete(request.params.uri);
    if (uris.size === 0) {
      stopWatching?.();
      stopWatching = undefined;
    }
    return {};
  });

  return () => {
    uris.clear();
    stopWatching?.();
    stopWatching = undefined;
  };
}

function subscribable(ctx: ToolContext, uri: string): string {
  if (uri.startsWith(INBOX_PREFIX)) {
    ownInbox(ctx, decodeURIComponent(uri.slice(INBOX_PREFIX.length)));
    return uri;
  }
  if (uri.startsWith(THREAD_PREFIX)) {
    const id = uri.slice(THREAD_PREFIX.length);
    if (idKind(id) !== 'thread')
      throw new BrainError('INVALID_INPUT', 'uri: must name a thread, brain://thread/thr_…');
    return uri;
  }
  throw new BrainError(
    'INVALID_INPUT',
    'uri: only brain://inbox/{you} and brain://thread/{id} change; knowledge never does',
  );
}
