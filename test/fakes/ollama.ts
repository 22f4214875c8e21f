import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { nextStep, parseJson, readBody, sendJson, serveHttp, watchClientCloses } from './http.js';

/**
 * A loopback Ollama: a real `node:http` server on 127.0.0.1 that the real `ollama` package and
 * the library's embedder talk to through `host`. One server plays /api/tags, /api/embed
 * (deterministic vectors, or the ways an embedder fails: `mode`) and /api/chat (one JSON
 * object, or NDJSON chunks when the request streams, which is the package's default, from a
 * script, with tool calls that carry no id, as Ollama's do). `startFakeOllama` is the view
 * embedding tests use, `startFakeOllamaChat` the one the assistant's model tests use.
 */

/** How the fake answers /api/embed. */
export type FakeMode = 'ok' | 'slow' | 'http500' | 'wrong-dimension' | 'nan' | 'not-json';

export interface FakeOllama {
  host: string;
  /** Every /api/embed request body, in order. */
  requests: EmbedRequest[];
  mode: FakeMode;
  models: string[];
  close(): Promise<void>;
}

export interface EmbedRequest {
  model: string;
  input: string[];
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
  embedRequests: EmbedRequest[];
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

/** What the one server reads and fills; each start function hands it its own view's fields. */
interface OllamaState {
  models: () => string[];
  mode: () => FakeMode;
  vectorOf: (input: string) => number[];
  embeds: EmbedRequest[];
  chats: RecordedChat[];
  nextChat: (record: RecordedChat) => FakeChatStep;
}

async function serveOllama(state: OllamaState) {
  const closes = watchClientCloses(state.chats);
  const http = await serveHttp(async (req, res) => {
    const raw = await readBody(req);
    if (req.method === 'GET' && req.url === '/api/tags') {
      return sendJson(res, 200, { models: state.models().map((name) => ({ name, model: name })) });
    }
    if (req.method !== 'POST') return sendJson(res, 404, { error: 'not found' });
    const body = parseJson(raw);
    if (!body) return sendJson(res, 400, { error: 'invalid JSON' });
    if (req.url === '/api/embed') return embed(res, body, state);
    if (req.url !== '/api/chat') return sendJson(res, 404, { error: 'not found' });
    const record: RecordedChat = { body, clientClosed: false };
    state.chats.push(record);
    closes.watch(res, record);
    chat(res, record, state.nextChat(record));
  });
  return { http, waitForClientClose: closes.waitForClientClose };
}

function embed(res: ServerResponse, body: Record<string, unknown>, state: OllamaState): void {
  const input = [body.input as string | string[]].flat();
  state.embeds.push({ model: String(body.model), input });
  const { vectorOf } = state;
  switch (state.mode()) {
    case 'slow':
      return void setTimeout(
        () => sendJson(res, 200, { embeddings: input.map(vectorOf) }),
        5_000,
      ).unref();
    case 'http500':
      return sendJson(res, 500, { error: 'model runner crashed' });
    case 'not-json':
      res.writeHead(502, { 'content-type': 'text/html' });
      return void res.end('<html>bad gateway</html>');
    case 'wrong-dimension':
      return sendJson(res, 200, { embeddings: input.map((s) => vectorOf(s).slice(0, 384)) });
    case 'nan':
      // JSON has no NaN; servers that produce one send null (or fail to encode).
      return sendJson(res, 200, { embeddings: input.map((s) => [null, ...vectorOf(s).slice(1)]) });
    case 'ok':
      return sendJson(res, 200, { model: body.model, embeddings: input.map(vectorOf) });
  }
}

function chat(res: ServerResponse, record: RecordedChat, step: FakeChatStep): void {
  const model = typeof record.body.model === 'string' ? record.body.model : 'llama3.1';
  // The package sends `stream: false` when asked not to stream; Ollama's own default is true.
  const stream = record.body.stream !== false;
  if (!isFailure(step)) return answer(res, step, model, stream);
  switch (step.error) {
    case 'model_not_found':
      return sendJson(res, 404, { error: `model "${model}" not found, try pulling it first` });
    case 'server':
      return sendJson(res, 500, { error: step.message ?? 'llama runner process has terminated' });
    case 'stall':
      if (!stream || step.silent) return; // no answer: the client must give up
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      res.write(
        JSON.stringify(chunk(model, { role: 'assistant', content: 'Let me' }, false)) + '\n',
      );
      return; // leave the stream open
  }
}

/** Ollama for embedding: /api/embed answers by `mode`; /api/chat answers `ok`. */
export async function startFakeOllama(
  options: { dimension?: number; vectorOf?: (input: string) => number[] } = {},
): Promise<FakeOllama> {
  const dimension = options.dimension ?? 768;
  const requests: EmbedRequest[] = [];
  const { http } = await serveOllama({
    models: () => fake.models,
    mode: () => fake.mode,
    vectorOf: options.vectorOf ?? ((s: string) => cannedVector(s, dimension)),
    embeds: requests,
    chats: [],
    nextChat: () => ({ text: 'ok' }),
  });
  const fake: FakeOllama = {
    host: http.url,
    requests,
    mode: 'ok',
    models: ['nomic-embed-text:latest'],
    close: http.close,
  };
  return fake;
}

/** Ollama for the assistant's models: /api/chat answers from a script; /api/embed answers `ok`. */
export async function startFakeOllamaChat(
  options: { dimension?: number } = {},
): Promise<FakeOllamaChat> {
  const dimension = options.dimension ?? 768;
  const requests: RecordedChat[] = [];
  const embedRequests: EmbedRequest[] = [];
  const { http, waitForClientClose } = await serveOllama({
    models: () => fake.models,
    mode: () => 'ok',
    vectorOf: (s) => cannedVector(s, dimension),
    embeds: embedRequests,
    chats: requests,
    nextChat: (record) => fake.failure ?? nextStep(fake.script, fake.fallback, record),
  });
  const fake: FakeOllamaChat = {
    host: http.url,
    requests,
    embedRequests,
    script: [],
    failure: undefined,
    fallback: () => ({ text: 'ok' }),
    models: ['llama3.1:latest', 'nomic-embed-text:latest'],
    waitForClientClose,
    close: http.close,
  };
  return fake;
}
