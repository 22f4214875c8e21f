import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BrainError, watchBrain, type Brain, type Embedder } from '../src/index.js';
import { startBackground, type BackgroundTask } from './background.js';
import type { Logger } from './log.js';
import { createMcpServer, watchError } from './server.js';
import { allowedHost, allowedOrigin, bearerToken, isLoopback, type TokenTable } from './access.js';

export interface HttpOptions {
  host: string;
  /** 0 picks a free port (see `port` of the result). */
  port: number;
  /** Bearer token → agent. Required unless the host is loopback and `agent` is given. */
  tokens?: TokenTable;
  /** On loopback without tokens: the one agent every client acts as. */
  agent?: string;
  /** Browser origins allowed besides loopback ones (e.g. a web client's). */
  allowedOrigins?: string[];
  /** Largest request body; bigger ones get 413 before anything is parsed. Default 4 MiB. */
  maxRequestBytes?: number;
  /** Open sessions at most; more get 503. Default 100. */
  maxSessions?: number;
  /**
   * Open sessions one token may hold; more get 429, so one agent cannot take every session and
   * lock the others out. Default 16. Not applied without tokens (every client is one agent).
   */
  maxSessionsPerToken?: number;
  /** A session with no open stream and no request for this long is closed. Default 30 min. */
  idleSessionMs?: number;
  log: Logger;
  background?: BackgroundTask[];
  embedder?: () => Embedder | undefined;
  /** Folders whose files send_message may attach by path. */
  attachRoots?: readonly string[];
  /** The owner's time zone, in which a query's time words are read; undefined: the system's. */
  timeZone?: string | undefined;
}

export interface RunningHttpServer {
  /** e.g. http://127.0.0.1:7337/mcp */
  url: string;
  port: number;
  sessions(): number;
  /** Close sessions idle since before `now - idleSessionMs` (runs every minute by itself). */
  sweepIdle(now?: number): Promise<number>;
  close(): Promise<void>;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
  agent: string;
  /** Whose session it is: a digest of the bearer token (never the token), or the agent. */
  holder: string;
  lastSeen: number;
  open: number;
}

export const MCP_PATH = '/mcp';

/**
 * `brain serve`: streamable HTTP for several agents at once, one MCP session per client, each
 * acting as its token's agent. Checks, in order: path, Host and Origin (DNS rebinding), bearer
 * token, body size; then the SDK transport takes the request.
 */
export async function serveHttp(brain: Brain, options: HttpOptions): Promise<RunningHttpServer> {
  const { log } = options;
  const loopback = isLoopback(options.host);
  if (!options.tokens && !loopback)
    throw new BrainError(
      'INVALID_INPUT',
      `--tokens: is required to serve beyond loopback (--host ${options.host})`,
    );
  if (!options.tokens && !options.agent)
    throw new BrainError(
      'INVALID_INPUT',
      '--agent: is required without --tokens (every client then acts as that agent); or give --tokens FILE',
    );
  const maxBytes = options.maxRequestBytes ?? 4 * 1024 * 1024;
  const maxSessions = options.maxSessions ?? 100;
  const perToken = options.tokens ? (options.maxSessionsPerToken ?? 16) : Infinity;
  const idleMs = options.idleSessionMs ?? 30 * 60_000;
  const sessions = new Map<string, Session>();
  // Initializes under way, by holder: a burst of them in parallel must not pass the caps before
  // any has registered its session.
  const opening = new Map<string, number>();
  const held = (holder: string) =>
    (opening.get(holder) ?? 0) + [...sessions.values()].filter((s) => s.holder === holder).length;
  const openingTotal = () => [...opening.values()].reduce((a, b) => a + b, 0);
  const watcher = watchBrain(brain, { onError: watchError(log) });

  const callerOf = (req: IncomingMessage): { agent: string; holder: string } | undefined => {
    if (!options.tokens) return options.agent ? { agent: options.agent, holder: '' } : undefined;
    const token = bearerToken(req.headers.authorization);
    const agent = token === undefined ? undefined : options.tokens.agentFor(token);
    if (token === undefined || agent === undefined) return undefined;
    return { agent, holder: createHash('sha256').update(token).digest('hex') };
  };

  const openSession = async (
    { agent, holder }: { agent: string; holder: string },
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
  ) => {
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: maxBytes,
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server, agent, holder, lastSeen: Date.now(), open: 0 });
        log.info(`serve: session ${id.slice(0, 8)} opened for ${agent}`);
      },
    });
    transport.onclose = () => {
      const id = transport.sessionId;
      if (id && sessions.delete(id)) log.info(`serve: session ${id.slice(0, 8)} closed`);
    };
    const server = createMcpServer(brain, {
      agent,
      watcher,
      log,
      embedder: options.embedder,
      attachRoots: options.attachRoots,
      timeZone: options.timeZone,
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
    // An initialize that failed leaves no session behind.
    if (!transport.sessionId || !sessions.has(transport.sessionId)) await server.close();
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== MCP_PATH) return fail(res, 404, `not found; the MCP endpoint is ${MCP_PATH}`);
    if (loopback && !allowedHost(req.headers.host))
      return fail(res, 403, 'forbidden: Host is not a loopback name');
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigin(origin, options.allowedOrigins ?? []))
      return fail(res, 403, 'forbidden: Origin not allowed');
    const caller = callerOf(req);
    if (caller === undefined) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="brain"');
      return fail(res, 401, 'unauthorized: send Authorization: Bearer <token>');
    }

    let body: unknown;
    if (req.method === 'POST') {
      const read = await readJson(req, maxBytes);
      if (read.status !== undefined) return fail(res, read.status, read.message, read.code);
      body = read.value;
    }
    const id = req.headers['mcp-session-id'];
    if (id === undefined && req.method === 'POST' && isInitializeRequest(body)) {
      if (sessions.size + openingTotal() >= maxSessions)
        return fail(res, 503, 'too many open sessions; close one (DELETE) and retry');
      if (held(caller.holder) >= perToken)
        return fail(
          res,
          429,
          `too many open sessions for this token (at most ${perToken}); close one (DELETE) and retry`,
        );
      opening.set(caller.holder, (opening.get(caller.holder) ?? 0) + 1);
      try {
        return await openSession(caller, req, res, body);
      } finally {
        const left = (opening.get(caller.holder) ?? 1) - 1;
        if (left > 0) opening.set(caller.holder, left);
        else opening.delete(caller.holder);
      }
    }
    if (typeof id !== 'string') return fail(res, 400, 'bad request: no valid mcp-session-id');
    const session = sessions.get(id);
    if (!session) return fail(res, 404, 'session not found; initialize a new one', -32001);
    if (session.agent !== caller.agent)
      return fail(res, 403, 'forbidden: this session belongs to another agent');
    session.lastSeen = Date.now();
    session.open++;
    res.on('close', () => {
      session.open--;
      session.lastSeen = Date.now();
    });
    await session.transport.handleRequest(req, res, body);
  };

  const http: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log.error(`serve: ${(err as Error).message}`);
      if (!res.headersSent) fail(res, 500, 'internal error', -32603);
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'EADDRINUSE'
          ? new BrainError('CONFLICT', `--port: ${options.port} is already in use`, { cause: err })
          : new BrainError(
              'INVALID_INPUT',
              `--host/--port: cannot listen on ${options.host}:${options.port}: ${err.message}`,
              { cause: err },
            ),
      ),
    );
    http.listen(options.port, options.host, () => resolve());
  });
  const port = (http.address() as AddressInfo).port;

  const sweepIdle = async (now = Date.now()) => {
    let closed = 0;
    for (const s of [...sessions.values()]) {
      if (s.open === 0 && now - s.lastSeen > idleMs) {
        await s.server.close();
        closed++;
      }
    }
    return closed;
  };
  const sweeper = setInterval(() => void sweepIdle(), 60_000);
  sweeper.unref();
  const stopBackground = startBackground(options.background ?? [], brain, log);

  const hostInUrl = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${hostInUrl}:${port}${MCP_PATH}`,
    port,
    sessions: () => sessions.size,
    sweepIdle,
    async close() {
      clearInterval(sweeper);
      await stopBackground();
      for (const s of [...sessions.values()]) await s.server.close();
      watcher.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** A JSON-RPC error answer with an HTTP status. */
function fail(res: ServerResponse, status: number, message: string, code = -32000): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

type ReadResult =
  { status?: undefined; value: unknown } | { status: number; message: string; code: number };

/** The request body as JSON, refusing more than `max` bytes whatever Content-Length claims. */
function readJson(req: IncomingMessage, max: number): Promise<ReadResult> {
  const tooLarge = { status: 413, message: `request body over ${max} bytes`, code: -32600 };
  return new Promise((resolve) => {
    if (Number(req.headers['content-length'] ?? 0) > max) {
      req.resume(); // drain without keeping it; the answer goes out at once
      return resolve(tooLarge);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      if (size > max) return;
      size += chunk.length;
      if (size > max) {
        chunks.length = 0;
        resolve(tooLarge);
      } else chunks.push(chunk);
    });
    req.on('error', (err) =>
      resolve({ status: 400, message: `bad request: ${err.message}`, code: -32600 }),
    );
    req.on('end', () => {
      if (size > max) return;
      try {
        resolve({ value: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      } catch {
        resolve({ status: 400, message: 'parse error: the body is not JSON', code: -32700 });
      }
    });
  });
}
