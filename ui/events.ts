import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BrainChanges, BrainWatcher } from '../src/index.js';

export interface EventHub {
  /** Answer with a server-sent event stream of changes until the client goes. */
  attach(req: IncomingMessage, res: ServerResponse): void;
  close(): void;
}

const KEEPALIVE_MS = 25_000;

/**
 * Server-sent events fed by the change watcher (the one the MCP server's notifications use):
 * `message` (id, thread, sender, recipients), `memory` (a new STM entry or atom: its id, type,
 * agent, source message and that message's thread) and `receipt` (a message read or acked: the
 * message, its thread, the agent, read or ack). Never a body or a memory's text: the page fetches
 * what it shows through the usual escaping.
 */
export function openEvents(watcher: BrainWatcher): EventHub {
  const clients = new Set<ServerResponse>();
  let unsubscribe: (() => void) | undefined;
  const send = (event: string, data: unknown) => {
    const text = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const res of clients) res.write(text);
  };
  const broadcast = (changes: BrainChanges) => {
    for (const m of changes.messages)
      send('message', { id: m.id, thread_id: m.thread_id, from: m.from, recipients: m.recipients });
    for (const m of changes.memories)
      send('memory', {
        type: m.type,
        id: m.id,
        agent: m.agent,
        source_message_id: m.source_message_id,
        thread_id: m.thread_id,
      });
    for (const r of changes.receipts)
      send('receipt', {
        kind: r.kind,
        message_id: r.message_id,
        thread_id: r.thread_id,
        agent: r.agent,
      });
  };
  const keepalive = setInterval(() => {
    for (const res of clients) res.write(`: keepalive\n\n`);
  }, KEEPALIVE_MS);
  keepalive.unref();
  return {
    attach(req, res) {
      res.writeHead(200, {
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-store',
        Connection: 'keep-alive',
      });
      res.write(`retry: 2000\n: connected\n\n`);
      clients.add(res);
      unsubscribe ??= watcher.onChanges(broadcast);
      req.on('close', () => {
        clients.delete(res);
        if (clients.size === 0) {
          unsubscribe?.();
          unsubscribe = undefined;
        }
      });
    },
    close() {
      clearInterval(keepalive);
      for (const res of clients) res.end();
      clients.clear();
      watcher.close();
    },
  };
}
