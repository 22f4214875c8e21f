import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  packageRoot,
  BrainError,
  isBrainError,
  watchBrain,
  type Brain,
  type WatchTimers,
} from '../src/index.js';
import { allowedHost, isLoopback, type TokenTable } from '../mcp/access.js';
import { html, type Html } from './html.js';
import { page, type PageContext } from './layout.js';
import { agentsPage } from './pages/agents.js';
import { assistantHasData, assistantPage } from './pages/assistant.js';
import { inboxPage } from './pages/inbox.js';
import { provenancePage } from './pages/provenance.js';
import { searchPage, type SearchEmbedder } from './pages/search.js';
import { startPage } from './pages/start.js';
import { messageArticle, threadPage, threadsPage } from './pages/threads.js';
import { Query } from './query.js';
import { createGate, sameOrigin, setSecurityHeaders, type Viewer } from './security.js';
import { openEvents } from './events.js';
import { serveAttachment } from './attachments.js';
import { createChatRoutes, type ChatDoor } from './chat.js';

export interface UiOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** Every page reads through this brain (open it read-only: then no read can write). */
  reader: Brain;
  /** Approvals are settled through this one. */
  writer: Brain;
  /**
   * The query embedder for search (as `brain search` makes it); asked at each search, so it may
   * appear once the brain has vectors. Without it search is by words.
   */
  searchEmbedder?: SearchEmbedder;
  /** The owner's time zone for times as said in a search (BRAIN_TIME_ZONE); else the system's. */
  timeZone?: string | undefined;
  /** Required beyond loopback: a login asks for one of these tokens once. */
  tokens?: TokenTable;
  /** The chat page (ui/chat.ts), when an assistant is configured; its token is the owner's login. */
  chat?: ChatDoor;
  /** Served over https by a proxy in front: cookies get Secure, Origins are https. */
  secure?: boolean;
  /** How often the change watcher looks (ms; default 200). */
  watchIntervalMs?: number;
  timers?: WatchTimers;
  /** Told about each failed request (never with a token or a message body). */
  onError?: (err: unknown) => void;
}

export interface RunningUi {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** The static files, in the package's ui/static (shipped as they are; the build copies nothing). */
function loadStatic(): Map<string, { type: string; body: Buffer }> {
  const dir = join(packageRoot(), 'ui', 'static');
  return new Map([
    [
      '/static/app.js',
      { type: 'text/javascript; charset=utf-8', body: readFileSync(join(dir, 'app.js')) },
    ],
    [
      '/static/chat.js',
      { type: 'text/javascript; charset=utf-8', body: readFileSync(join(dir, 'chat.js')) },
    ],
    [
      '/static/style.css',
      { type: 'text/css; charset=utf-8', body: readFileSync(join(dir, 'style.css')) },
    ],
  ]);
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Beyond loopback only with tokens: INVALID_INPUT naming --host otherwise. */
export function checkUiHost(host: string, tokens: boolean): void {
  if (!isLoopback(host) && !tokens)
    throw new BrainError(
      'INVALID_INPUT',
      `--host: ${host} is not loopback, so --tokens FILE is required`,
    );
}

/** `brain ui`: the web explorer over one brain. Loopback unless tokens are given. */
export async function startUi(options: UiOptions): Promise<RunningUi> {
  const loopback = isLoopback(options.host);
  checkUiHost(options.host, Boolean(options.tokens || options.chat?.token));
  const secure = options.secure ?? false;
  const { chat } = options;
  const gate = createGate(
    options.tokens,
    secure,
    chat?.token ? { token: chat.token, agent: chat.owner } : undefined,
  );
  const statics = loadStatic();
  const events = openEvents(
    watchBrain(options.reader, {
      intervalMs: options.watchIntervalMs ?? 200,
      ...(options.timers ? { timers: options.timers } : {}),
      ...(options.onError ? { onError: options.onError } : {}),
    }),
  );
  const { reader, writer } = options;

  const context = (viewer: Viewer): PageContext => ({
    assistant: assistantHasData(reader),
    chat: chat !== undefined && viewer.owner,
    csrf: viewer.csrf,
    owner: viewer.owner,
    ...(viewer.agent ? { viewer: viewer.agent } : {}),
  });

  const send = (
    res: ServerResponse,
    status: number,
    body: Html | string,
    type = 'text/html; charset=utf-8',
  ) => {
    res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' });
    res.end(typeof body === 'string' ? body : body.text);
  };
  const errorPage = (res: ServerResponse, status: number, message: string, viewer?: Viewer) =>
    send(
      res,
      status,
      viewer
        ? page(`Error ${status}`, context(viewer), html`<p class="error">${message}</p>`)
        : html`<!doctype html><title>${status}</title>
            <p>${message}</p>`,
    );

  const chatRoutes =
    chat &&
    createChatRoutes({
      reader,
      door: chat,
      refuse: (res, status, message, viewer) => errorPage(res, status, message, viewer),
    });

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    setSecurityHeaders(res);
    if (loopback && !allowedHost(req.headers.host))
      return void errorPage(res, 421, 'Unknown host.');
    const url = new URL(req.url ?? '/', 'http://ui.invalid');
    const path = url.pathname;
    const method = req.method ?? 'GET';
    const file = statics.get(path);
    if (file && method === 'GET') {
      res.writeHead(200, { 'Content-Type': file.type, 'Cache-Control': 'no-cache' });
      return void res.end(file.body);
    }
    if (path === '/login') return login(req, res, method);
    const viewer = gate.viewer(req);
    if (!viewer) {
      if (method === 'GET' && path !== '/events' && path !== '/chat/stream') {
        res.writeHead(303, { Location: '/login' });
        return void res.end();
      }
      return void errorPage(res, 401, 'Log in first.');
    }
    if (method === 'POST') return post(req, res, path, viewer);
    if (method !== 'GET' && method !== 'HEAD')
      return void errorPage(res, 405, 'Method not allowed.', viewer);
    if (path === '/events') return void events.attach(req, res);
    if (chatRoutes && (await chatRoutes.get(req, res, path, url, context(viewer), viewer))) return;
    const q = new Query(url.searchParams);
    const ctx = context(viewer);
    const parts = path.split('/').slice(1).map(decodeSegment);
    let body: Html | undefined;
    if (path === '/') body = startPage(reader, ctx);
    else if (path === '/agents') body = agentsPage(reader, ctx);
    else if (path === '/threads') body = threadsPage(reader, ctx, q);
    else if (parts[0] === 'threads' && parts.length === 2)
      body = threadPage(reader, ctx, parts[1]!, q);
    else if (parts[0] === 'inbox' && parts.length === 2) body = inboxPage(reader, ctx, parts[1]!);
    else if (path === '/search')
      body = await searchPage(reader, ctx, q, options.searchEmbedder, options.timeZone);
    else if (parts[0] === 'provenance' && parts.length === 2)
      body = provenancePage(reader, ctx, parts[1]!);
    else if (path === '/assistant' && ctx.assistant)
      body = assistantPage(reader, ctx, q.text('done', 100));
    else if (parts[0] === 'attachments' && parts.length === 2) {
      if (serveAttachment(reader, res, parts[1]!)) return;
    } else if (parts[0] === 'fragments' && parts[1] === 'message' && parts.length === 3) {
      const fragment = messageFragment(parts[2]!);
      if (fragment) return void send(res, 200, fragment);
    }
    if (!body) return void errorPage(res, 404, 'No such page.', viewer);
    send(res, 200, body);
  };

  /** One message as the thread page shows it (receipts, acks, what was learned), for the live script. */
  const messageFragment = (id: string): Html | undefined => {
    const message = reader.messages.getThreadMessage(id);
    if (!message) return undefined;
    return messageArticle(
      message,
      reader.knowledge.derivedFromMessages([message.id]).get(message.id),
    );
  };

  const login = async (req: IncomingMessage, res: ServerResponse, method: string) => {
    const form = (error?: string) =>
      html`<!doctype html>
        <html lang="en">
          <head>
            <meta charset="utf-8" />
            <meta name="viewport" content="width=device-width, initial-scale=1" />
            <title>Log in · brain</title>
            <link rel="stylesheet" href="/static/style.css" />
          </head>
          <body>
            <main id="main">
              <h1>brain</h1>
              ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
              <form method="post" action="/login">
                <p>
                  <label for="token">Token</label>
                  <input
                    id="token"
                    name="token"
                    type="password"
                    autocomplete="current-password"
                    required
                  />
                </p>
                <p><button type="submit">Log in</button></p>
              </form>
            </main>
          </body>
        </html>`;
    if (!gate.needsLogin) {
      res.writeHead(303, { Location: '/' });
      return void res.end();
    }
    if (method === 'GET') return void send(res, 200, form());
    if (method !== 'POST') return void send(res, 405, form());
    if (!sameOrigin(req, secure))
      return void send(res, 403, form('Refused: this form must be sent from this page.'));
    const fields = await readForm(req);
    const cookie = gate.login(fields.get('token') ?? '');
    if (!cookie) return void send(res, 401, form('That token is not known.'));
    res.writeHead(303, { Location: '/', 'Set-Cookie': cookie });
    res.end();
  };

  const post = async (req: IncomingMessage, res: ServerResponse, path: string, viewer: Viewer) => {
    if (!sameOrigin(req, secure))
      return void errorPage(res, 403, 'Refused: foreign or missing Origin.', viewer);
    const fields = await readForm(req);
    if (!gate.checkCsrf(viewer, fields.get('csrf') ?? undefined))
      return void errorPage(res, 403, 'Refused: missing or wrong CSRF token.', viewer);
    if (chatRoutes && (await chatRoutes.post(req, res, path, fields, viewer))) return;
    const match = /^\/approvals\/(\d{1,12})$/.exec(path);
    if (!match) return void errorPage(res, 404, 'No such action.', viewer);
    const decision = fields.get('decision');
    if (decision !== 'approved' && decision !== 'denied')
      return void errorPage(res, 400, 'decision: must be approved or denied', viewer);
    // The assistant asks its owner: an agent's token browses, but does not answer for the owner.
    if (!viewer.owner)
      return void errorPage(res, 403, "Only the owner answers the assistant's questions.", viewer);
    const id = Number(match[1]);
    // A question of the chat's running turn is answered in the turn; any other is recorded in
    // the brain, where the process that asked it is watching (agent/permissions/approvals.ts).
    if (!(await chatRoutes?.answerRecord(id, decision))) {
      try {
        writer.assistant.answerApproval({ id, decision, reason: 'decided in brain ui' });
      } catch (err) {
        if (!isBrainError(err) || err.code !== 'CONFLICT') throw err;
        return void send(res, 409, assistantPage(reader, context(viewer), err.message));
      }
    }
    const done = `Request ${id} ${decision}.`;
    res.writeHead(303, { Location: `/assistant?done=${encodeURIComponent(done)}` });
    res.end();
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (res.headersSent) return void res.end();
      if (err instanceof HttpError) return void errorPage(res, err.status, err.message);
      if (isBrainError(err) && (err.code === 'INVALID_INPUT' || err.code === 'NOT_FOUND')) {
        const viewer = gate.viewer(req);
        return void errorPage(res, err.code === 'NOT_FOUND' ? 404 : 400, err.message, viewer);
      }
      options.onError?.(err);
      errorPage(res, 500, 'Something went wrong; see the server log.');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `${secure ? 'https' : 'http'}://${shownHost}:${port}/`,
    port,
    close: async () => {
      events.close();
      await chatRoutes?.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A path segment as text; a malformed escape (`%E0`) is a 400, not a crash. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new BrainError('INVALID_INPUT', `path: ${segment} is not a valid URL segment`);
  }
}

const MAX_FORM_BYTES = 16 * 1024;

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const type = req.headers['content-type'] ?? '';
  if (!type.startsWith('application/x-www-form-urlencoded'))
    throw new HttpError(415, 'Forms only.');
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) throw new HttpError(413, 'Form too large.');
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}
