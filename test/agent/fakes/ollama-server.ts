import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { cannedVector } from '../../fake-ollama.js';

/**
 * A loopback Ollama for the assistant's tests: a real `node:http` server on 127.0.0.1 that the
 * real `ollama` package talks to through `host`. It answers /api/chat (one JSON object, or NDJSON
 * chunks when the request streams, which is the package's default) from a script, with tool calls
 * that carry no id, as Ollama's do; /api/embed and /api/tags answer as test/fake-ollama.ts does.
 */

export interface FakeChatReply {
  /** One string, or the chunks it streams in. */
  text?: string | string[];
  /** Ollama's tool calls: a name and parsed arguments, no id. */
  toolCalls?: Array<{ name: string; arguments: Record<string, unknown> }>;
  /** `prompt_eval_count` and `eval_count` of the final chunk. */
  promptEvalCount?: number;
  evalCount?: number;
  /** Default `stop` (Ollama says `stop` also when it calls tools). */
  doneReason?: string;
}

export type FakeChatFailure =
  /** 404 `model "x" not found, try pulling it first`. */
  | { error: 'model_not_found' }
  /** 500 with an error message. */
  | { error: 'server'; message?: string }
  /**
   * Streams one chunk (or, not streaming or `silent`, sends nothing at all, not even headers),
   * then stalls until the client goes away.
   */
  | { error: 'stall'; silent?: boolean };

export type FakeChatStep = FakeChatReply | FakeChatFailure;

export interface RecordedChat {
  /** The parsed /api/chat body: `model`, `messages`, `tools`, `stream`, `options`, … */
  body: Record<string, unknown>;
  clientClosed: boolean;
}

export interface FakeOllamaChat {
  /** Give this to `new Ollama({ host })`. */
  host: string;
  /** Every /api/chat request, in order. */
  requests: RecordedChat[];
  /** Every /api/embed request, in order. */
  embedRequests: Array<{ model: string; input: string[] }>;
  script: Array<FakeChatStep | ((request: RecordedChat) => FakeChatStep)>;
  /** When set, every chat request gets it (the script is left as it is). */
  failure: FakeChatFailure | undefined;
  /** What answers when the script is empty: default a short text. */
  fallback: (request: RecordedChat) => FakeChatStep;
  models: string[];
  waitForClientClose(index: number): Promise<void>;
  close(): Promise<void>;
}

const isFailure = (step: FakeChatStep): step is FakeChatFailure => 'error' in step;

function chunk(model: string, message: Record<string, unknown>, done: boolean, extra = {}) {
  return { model, created_at: new Date().toISOString(), message, done, ...extra };
}

function finalFields(reply: FakeChatReply) {
  return {
    done_reason: reply.doneReason ?? 'stop',
    total_duration: 1_000_000,
    load_duration: 100_000,
    prompt_eval_count: reply.promptEvalCount ?? 12,
    prompt_eval_duration: 200_000,
    eval_count: reply.evalCount ?? 6,
    eval_duration: 300_000,
  };
}

function toolCallsOf(reply: FakeChatReply) {
  return reply.toolCalls?.map((call) => ({
    function: { name: call.name, arguments: call.arguments },
  }));
}

function answer(res: ServerResponse, reply: FakeChatReply, model: string, stream: boolean): void {
  const texts = reply.text === undefined ? [] : [reply.text].flat();
  const toolCalls = toolCallsOf(reply);
  if (!stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    const message: Record<string, unknown> = { role: 'assistant', content: texts.join('') };
    if (toolCalls) message.tool_calls = toolCalls;
    return void res.end(JSON.stringify(chunk(model, message, true, finalFields(reply))));
  }
  res.writeHead(200, { 'content-type': 'application/x-ndjson' });
  for (const text of texts) {
    res.write(JSON.stringify(chunk(model, { role: 'assistant', content: text }, false)) + '\n');
  }
  if (toolCalls) {
    // Ollama sends the tool calls whole, in a chunk of their own, before the final one.
    const message = { role: 'assistant', content: '', tool_calls: toolCalls };
    res.write(JSON.stringify(chunk(model, message, false)) + '\n');
  }
  const last = chunk(model, { role: 'assistant', content: '' }, true, finalFields(reply));
  res.end(JSON.stringify(last) + '\n');
}

export async function startFakeOllamaChat(
  options: { dimension?: number } = {},
): Promise<FakeOllamaChat> {
  const dimension = options.dimension ?? 768;
  const sockets = new Set<Socket>();
  const closeWaiters = new Map<number, Array<() => void>>();
  const fake: FakeOllamaChat = {
    host: '',
    requests: [],
    embedRequests: [],
    script: [],
    failure: undefined,
    fallback: () => ({ text: 'ok' }),
    models: ['llama3.1:latest', 'nomic-embed-text:latest'],
    waitForClientClose(index) {
      if (fake.requests[index]?.clientClosed) return Promise.resolve();
      return new Promise((resolve) => {
        closeWaiters.set(index, [...(closeWaiters.get(index) ?? []), resolve]);
      });
    },
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const nextStep = (record: RecordedChat): FakeChatStep => {
    const next = fake.script.shift();
    if (next === undefined) return fake.fallback(record);
    return typeof next === 'function' ? next(record) : next;
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
      if (req.method !== 'POST') return json(404, { error: 'not found' });
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        return json(400, { error: 'invalid JSON' });
      }
      if (req.url === '/api/embed') {
        const input = [body.input as string | string[]].flat();
        fake.embedRequests.push({ model: String(body.model), input });
        return json(200, {
          model: body.model,
          embeddings: input.map((s) => cannedVector(s, dimension)),
        });
      }
      if (req.url !== '/api/chat') return json(404, { error: 'not found' });

      const index = fake.requests.length;
      const record: RecordedChat = { body, clientClosed: false };
      fake.requests.push(record);
      res.on('close', () => {
        if (res.writableFinished) return;
        record.clientClosed = true;
        for (const wake of closeWaiters.get(index) ?? []) wake();
        closeWaiters.delete(index);
      });
      const model = typeof body.model === 'string' ? body.model : 'llama3.1';
      // The package sends `stream: false` when asked not to stream; Ollama's own default is true.
      const stream = body.stream !== false;
      const step = fake.failure ?? nextStep(record);
      if (!isFailure(step)) return answer(res, step, model, stream);
      switch (step.error) {
        case 'model_not_found':
          return json(404, { error: `model "${model}" not found, try pulling it first` });
        case 'server':
          return json(500, { error: step.message ?? 'llama runner process has terminated' });
        case 'stall':
          if (!stream || step.silent) return; // no answer: the client must give up
          res.writeHead(200, { 'content-type': 'application/x-ndjson' });
          res.write(
            JSON.stringify(chunk(model, { role: 'assistant', content: 'Let me' }, false)) + '\n',
          );
          return; // leave the stream open
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
