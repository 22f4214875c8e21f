import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ArrivedMessage, BrainWatcher } from '../src/index.js';

export interface EventHub {
  /** Answer with a server-sent event stream of new messages until the client goes. */
  attach(req: IncomingMessage, res: ServerResponse): void;
  close(): void;
}

const KEEPALIVE_MS = 25_000;

/**
 * Server-sent events fed by the change watcher (the one the MCP server's notifications use):
 * each new message is one `message` event carrying its id, thread, sender and recipients — never
 * its body; the page fetches what it shows through the usual escaping.
 */
export function openEvents(watcher: BrainWatcher): EventHub {
  const clients = new Set<ServerResponse>();
  let unsubscribe: (() => void) | undefined;
  const broadcast = (messages: ArrivedMessage[]) => {
    for (const m of messages) {
      const data = JSON.stringify({
        id: m.id,
        thread_id: m.thread_id,
        from: m.from,
        recipients: m.recipients,
      });
      for (const res of clients) res.write(`event: message\ndata: ${data}\n\n`);
    }
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
      unsubscribe ??= watcher.onMessages(broadcast);
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
