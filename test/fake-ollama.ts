import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** How the fake answers /api/embed. */
export type FakeMode = 'ok' | 'slow' | 'http500' | 'wrong-dimension' | 'nan' | 'not-json';

export interface FakeOllama {
  host: string;
  /** Every /api/embed request body, in order. */
  requests: Array<{ model: string; input: string[] }>;
  mode: FakeMode;
  models: string[];
  close(): Promise<void>;
}

/** A deterministic unit-ish vector for a text: the same text always gets the same vector. */
export function cannedVector(text: string, dimension = 768): number[] {
  const out: number[] = [];
  let block = createHash('sha256').update(text).digest();
  for (let i = 0; out.length < dimension; i++) {
    if (i % 32 === 0 && i > 0) block = createHash('sha256').update(block).digest();
    out.push((block[i % 32]! - 127.5) / 127.5);
  }
  return out;
}

/** A real HTTP server on 127.0.0.1 that plays Ollama's /api/embed and /api/tags. */
export async function startFakeOllama(
  options: { dimension?: number; vectorOf?: (input: string) => number[] } = {},
): Promise<FakeOllama> {
  const dimension = options.dimension ?? 768;
  const vectorOf = options.vectorOf ?? ((s: string) => cannedVector(s, dimension));
  const sockets = new Set<Socket>();
  const fake: FakeOllama = {
    host: '',
    requests: [],
    mode: 'ok',
    models: ['nomic-embed-text:latest'],
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (d: Buffer) => (raw += d.toString()));
    req.on('end', () => {
      const json = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.method === 'GET' && req.url === '/api/tags') {
        return json(200, { models: fake.models.map((name) => ({ name, model: name })) });
      }
      if (req.method !== 'POST' || req.url !== '/api/embed')
        return json(404, { error: 'not found' });
      const body = JSON.parse(raw) as { model: string; input: string | string[] };
      const input = Array.isArray(body.input) ? body.input : [body.input];
      fake.requests.push({ model: body.model, input });
      switch (fake.mode) {
        case 'slow':
          return void setTimeout(
            () => json(200, { embeddings: input.map(vectorOf) }),
            5_000,
          ).unref();
        case 'http500':
          return json(500, { error: 'model runner crashed' });
        case 'not-json':
          res.writeHead(502, { 'content-type': 'text/html' });
          return void res.end('<html>bad gateway</html>');
        case 'wrong-dimension':
          return json(200, { embeddings: input.map((s) => vectorOf(s).slice(0, 384)) });
        case 'nan':
          res.writeHead(200, { 'content-type': 'application/json' });
          // JSON has no NaN; servers that produce one send null (or fail to encode).
          return void res.end(
            JSON.stringify({ embeddings: input.map((s) => [null, ...vectorOf(s).slice(1)]) }),
          );
        default:
          return json(200, { model: body.model, embeddings: input.map(vectorOf) });
      }
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.host = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
