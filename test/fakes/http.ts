import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';

/**
 * The HTTP plumbing every fake service shares: a real `node:http` server on 127.0.0.1:0, body
 * readers, JSON and SSE writers, request recording, and a `close()` that destroys open sockets
 * so a held long-poll or stalled stream never keeps it waiting.
 */

/** What it returns is awaited and otherwise ignored, so `(req, res) => res.end()` is one. */
export type Handler = (req: IncomingMessage, res: ServerResponse) => unknown;

export interface HttpFake {
  server: Server;
  port: number;
  /** `http://127.0.0.1:<port>`, no trailing slash (a server on `::` answers there too). */
  url: string;
  /** Destroys every open socket (upgraded ones too), then closes the server. */
  close(): Promise<void>;
}

/** `host` defaults to 127.0.0.1; `::` listens on every address of the machine (IPv4 too). */
export async function serveHttp(
  handler: Handler,
  options: { host?: string } = {},
): Promise<HttpFake> {
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    void (async () => handler(req, res))().catch((error: unknown) => {
      // A fake's own bug answers 500 with its message, so the test fails on it rather than hangs.
      if (res.headersSent) res.destroy();
      else sendJson(res, 500, { error: `fake failed: ${String(error)}` });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, options.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    port,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A port on 127.0.0.1 that was free a moment ago: nothing listens there until someone does. */
export async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** A JSON object, or undefined when the text is not one (the fake answers 400 then). */
export function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined; // not JSON: the caller decides how the service answers that
  }
}

/** The body by its content type: JSON, a form, `{}` when empty, else `{ raw }`. */
export function parseParams(req: IncomingMessage, body: string): Record<string, unknown> {
  if (body === '') return {};
  const type = req.headers['content-type'] ?? '';
  if (type.includes('application/json')) return parseJson(body) ?? { raw: body };
  if (type.includes('x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(body));
  return { raw: body };
}

/** A file part of a multipart upload. */
export interface SentFile {
  name: string;
  type: string;
  bytes: Buffer;
}

/**
 * A multipart/form-data body as fields (text parts as strings, file parts as `SentFile`s), or
 * undefined when the body is not multipart. Parsed by hand: grammY writes `filename=f.csv`
 * unquoted, which undici's FormData parser refuses.
 */
export function parseMultipart(
  contentType: string | undefined,
  raw: Buffer,
): Record<string, unknown> | undefined {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(contentType ?? '');
  if (!contentType?.includes('multipart/form-data') || !boundary) return undefined;
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]!.trim()}`);
  const params: Record<string, unknown> = {};
  let at = raw.indexOf(delimiter);
  while (at >= 0) {
    const start = at + delimiter.length;
    if (raw.subarray(start, start + 2).toString() === '--') break;
    const next = raw.indexOf(delimiter, start);
    if (next < 0) break;
    // Each part: CRLF, headers, a blank line, the content, CRLF before the next delimiter.
    const part = raw.subarray(start + 2, next - 2);
    const split = part.indexOf('\r\n\r\n');
    const headers = part.subarray(0, split).toString('utf8');
    const content = part.subarray(split + 4);
    const name = /name="([^"]*)"/i.exec(headers)?.[1] ?? '';
    const filename = /filename=(?:"([^"]*)"|([^;\r\n]+))/i.exec(headers);
    if (filename)
      params[name] = {
        name: filename[1] ?? filename[2]!.trim(),
        type: /content-type:\s*([^\r\n]+)/i.exec(headers)?.[1]?.trim() ?? '',
        bytes: Buffer.from(content),
      } satisfies SentFile;
    else params[name] = content.toString('utf8');
    at = next;
  }
  return params;
}

/** Answers with JSON; a response the client already dropped is left alone. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.writableEnded || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export function startSse(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
}

export function sendEvent(res: ServerResponse, event: string, data: unknown): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** Recorded calls, and promises that resolve once enough matching ones have arrived. */
export interface Recorder<T> {
  calls: T[];
  record(call: T): void;
  /** Resolves with every matching call once there are `count` of them (or already are). */
  waitFor(test: (call: T) => boolean, count?: number): Promise<T[]>;
}

export function createRecorder<T>(calls: T[] = []): Recorder<T> {
  let waiters: Array<() => boolean> = [];
  return {
    calls,
    record(call) {
      calls.push(call);
      waiters = waiters.filter((check) => !check());
    },
    waitFor(test, count = 1) {
      return new Promise((resolve) => {
        const check = () => {
          const found = calls.filter(test);
          if (found.length < count) return false;
          resolve(found);
          return true;
        };
        if (!check()) waiters.push(check);
      });
    },
  };
}

/** A request whose answer the client may abandon (a stalled stream, a timeout). */
export interface Abandonable {
  clientClosed: boolean;
}

/**
 * Marks records whose client went away before the answer finished, and lets a test wait for
 * that by the record's index.
 */
export function watchClientCloses<T extends Abandonable>(records: T[]) {
  const waiters = new Map<number, Array<() => void>>();
  return {
    watch(res: ServerResponse, record: T): void {
      const index = records.indexOf(record);
      res.on('close', () => {
        if (res.writableFinished) return;
        record.clientClosed = true;
        for (const wake of waiters.get(index) ?? []) wake();
        waiters.delete(index);
      });
    },
    waitForClientClose(index: number): Promise<void> {
      if (records[index]?.clientClosed) return Promise.resolve();
      return new Promise((resolve) => waiters.set(index, [...(waiters.get(index) ?? []), resolve]));
    },
  };
}

/** A scripted fake's next answer: the script's head (a value, or a function of the request), else the fallback. */
export function nextStep<S, R>(
  script: Array<S | ((request: R) => S)>,
  fallback: (request: R) => S,
  request: R,
): S {
  const next = script.shift();
  if (next === undefined) return fallback(request);
  return typeof next === 'function' ? (next as (request: R) => S)(request) : next;
}
