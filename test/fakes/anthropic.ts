import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  nextStep,
  parseJson,
  readBody,
  sendEvent,
  sendJson,
  serveHttp,
  startSse,
  watchClientCloses,
} from './http.js';

/**
 * A loopback Anthropic Messages API for the assistant's tests: a real `node:http` server on
 * 127.0.0.1 that the real `@anthropic-ai/sdk` talks to through `baseURL`. It answers
 * POST /v1/messages as JSON or as SSE (when the request says `stream: true`), from a script of
 * replies, and can fail the ways the real API fails.
 */

export interface FakeUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

/** One scripted answer. Text comes first, then the tool uses, as the real model writes them. */
export interface FakeReply {
  /** One string, or the deltas it streams in (each is one `text_delta`). */
  text?: string | string[];
  toolUses?: Array<{ id?: string; name: string; input: Record<string, unknown> }>;
  /** Default: `tool_use` when there are tool uses, else `end_turn`. */
  stopReason?: 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence' | 'refusal';
  usage?: FakeUsage;
  /** Default: the request's model. */
  model?: string;
  /** Streaming: the first text delta goes out at once, the rest once this resolves. */
  hold?: Promise<void>;
}

/** The ways the fake fails a request. */
export type FakeFailure =
  /** 429 rate_limit_error; `retryAfter` becomes the `retry-after` header (seconds or a date). */
  | { error: 'rate_limited'; retryAfter?: string; retryAfterMs?: number }
  /** 529 overloaded_error. */
  | { error: 'overloaded' }
  /** A 200 SSE stream that starts, then sends an `error` event (overloaded_error), as the API does mid-stream. */
  | { error: 'overloaded_mid_stream' }
  /** 401 authentication_error. */
  | { error: 'auth'; status?: 401 | 402 | 403 }
  /** 400 invalid_request_error "prompt is too long: N tokens > 200000 maximum". */
  | { error: 'prompt_too_long' }
  /** 400 invalid_request_error with another message. */
  | { error: 'bad_request'; message?: string }
  /** 500 api_error. */
  | { error: 'server' }
  /** Streams message_start and one text delta (or answers nothing, for JSON), then stalls until the client goes away. */
  | { error: 'stall' };

export type FakeStep = FakeReply | FakeFailure;

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** The parsed JSON body (`model`, `system`, `messages`, `tools`, `stream`, …). */
  body: Record<string, unknown>;
  /** True once the client closed the connection before the fake finished its answer. */
  clientClosed: boolean;
}

export interface FakeAnthropic {
  /** Give this to the SDK as `baseURL`. */
  baseUrl: string;
  /** Every request, in order of arrival. */
  requests: RecordedRequest[];
  /** Answers in order; each is used once. A function gets the request and answers it. */
  script: Array<FakeStep | ((request: RecordedRequest) => FakeStep)>;
  /** When set, every request gets this (the script is left as it is) until it is cleared. */
  failure: FakeFailure | undefined;
  /** What answers when the script is empty: default a short `end_turn` text. */
  fallback: (request: RecordedRequest) => FakeStep;
  /** Resolves when request number `index` (0-based) has been closed early by the client. */
  waitForClientClose(index: number): Promise<void>;
  close(): Promise<void>;
}

const isFailure = (step: FakeStep): step is FakeFailure => 'error' in step;

function usageOf(usage: FakeUsage | undefined) {
  return {
    input_tokens: usage?.input_tokens ?? 10,
    output_tokens: usage?.output_tokens ?? 5,
    cache_read_input_tokens: usage?.cache_read_input_tokens ?? 0,
    cache_creation_input_tokens: usage?.cache_creation_input_tokens ?? 0,
  };
}

function blocksOf(reply: FakeReply) {
  const texts = reply.text === undefined ? [] : [reply.text].flat();
  const blocks: Array<Record<string, unknown>> = [];
  if (texts.length > 0) blocks.push({ type: 'text', text: texts.join(''), citations: null });
  for (const use of reply.toolUses ?? []) {
    blocks.push({
      type: 'tool_use',
      id: use.id ?? `toolu_${randomUUID().replaceAll('-', '').slice(0, 24)}`,
      name: use.name,
      input: use.input,
    });
  }
  return { texts, blocks };
}

function messageOf(reply: FakeReply, model: string, blocks: Array<Record<string, unknown>>) {
  return {
    id: `msg_${randomUUID().replaceAll('-', '').slice(0, 24)}`,
    type: 'message',
    role: 'assistant',
    model: reply.model ?? model,
    content: blocks,
    stop_reason: reply.stopReason ?? (reply.toolUses?.length ? 'tool_use' : 'end_turn'),
    stop_sequence: null,
    usage: usageOf(reply.usage),
  };
}

function errorBody(type: string, message: string) {
  return { type: 'error', error: { type, message }, request_id: `req_${randomUUID()}` };
}

/** Splits a JSON text in pieces, so tool input arrives as several `input_json_delta`s. */
function pieces(text: string, size = 7): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length > 0 ? out : [''];
}

function streamReply(res: ServerResponse, reply: FakeReply, model: string): void {
  const { texts, blocks } = blocksOf(reply);
  const message = messageOf(reply, model, blocks);
  const usage = message.usage;
  startSse(res);
  // With `hold`, every event after the first text delta waits for it.
  const held: Array<() => void> = [];
  let deltas = 0;
  const writeEvent = (r: ServerResponse, name: string, data: Record<string, unknown>) => {
    if (reply.hold && deltas > 0) held.push(() => sendEvent(r, name, data));
    else sendEvent(r, name, data);
    if (data.type === 'content_block_delta') deltas++;
  };
  writeEvent(res, 'message_start', {
    type: 'message_start',
    message: {
      ...message,
      content: [],
      stop_reason: null,
      usage: { ...usage, output_tokens: 1 },
    },
  });
  writeEvent(res, 'ping', { type: 'ping' });
  blocks.forEach((block, index) => {
    if (block.type === 'text') {
      writeEvent(res, 'content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'text', text: '', citations: null },
      });
      for (const text of texts) {
        writeEvent(res, 'content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'text_delta', text },
        });
      }
    } else {
      writeEvent(res, 'content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
      });
      for (const partial of pieces(JSON.stringify(block.input))) {
        writeEvent(res, 'content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: partial },
        });
      }
    }
    writeEvent(res, 'content_block_stop', { type: 'content_block_stop', index });
  });
  writeEvent(res, 'message_delta', {
    type: 'message_delta',
    delta: { stop_reason: message.stop_reason, stop_sequence: null },
    usage: { output_tokens: usage.output_tokens },
  });
  writeEvent(res, 'message_stop', { type: 'message_stop' });
  if (!reply.hold || held.length === 0) return void res.end();
  void reply.hold.then(() => {
    for (const write of held) write();
    res.end();
  });
}

function fail(res: ServerResponse, failure: FakeFailure, stream: boolean, model: string): void {
  const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    sendJson(res, status, body, headers);
  switch (failure.error) {
    case 'rate_limited': {
      const headers: Record<string, string> = {};
      if (failure.retryAfter !== undefined) headers['retry-after'] = failure.retryAfter;
      if (failure.retryAfterMs !== undefined)
        headers['retry-after-ms'] = String(failure.retryAfterMs);
      return json(
        429,
        errorBody('rate_limit_error', 'Number of request tokens has exceeded your rate limit.'),
        headers,
      );
    }
    case 'overloaded':
      return json(529, errorBody('overloaded_error', 'Overloaded'));
    case 'auth': {
      const status = failure.status ?? 401;
      const type =
        status === 401
          ? 'authentication_error'
          : status === 402
            ? 'billing_error'
            : 'permission_error';
      return json(status, errorBody(type, 'invalid x-api-key'));
    }
    case 'prompt_too_long':
      return json(
        400,
        errorBody('invalid_request_error', 'prompt is too long: 210000 tokens > 200000 maximum'),
      );
    case 'bad_request':
      return json(400, errorBody('invalid_request_error', failure.message ?? 'messages: bad'));
    case 'server':
      return json(500, errorBody('api_error', 'Internal server error'));
    case 'overloaded_mid_stream':
    case 'stall': {
      if (!stream) {
        if (failure.error === 'stall') return; // no answer at all: the client must give up
        return json(529, errorBody('overloaded_error', 'Overloaded'));
      }
      startSse(res);
      sendEvent(res, 'message_start', {
        type: 'message_start',
        message: { ...messageOf({}, model, []), stop_reason: null },
      });
      sendEvent(res, 'content_block_start', {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'text', text: '', citations: null },
      });
      sendEvent(res, 'content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text: 'Let me think' },
      });
      if (failure.error === 'overloaded_mid_stream') {
        sendEvent(res, 'error', errorBody('overloaded_error', 'Overloaded'));
        res.end();
      }
      return; // stall: leave the stream open
    }
  }
}

export async function startFakeAnthropic(): Promise<FakeAnthropic> {
  const requests: RecordedRequest[] = [];
  const closes = watchClientCloses(requests);
  const http = await serveHttp(async (req, res) => {
    const raw = await readBody(req);
    const path = (req.url ?? '').split('?')[0]!;
    // GET /v1/models/{id} (what `brain agent --check` asks): not recorded, not scripted;
    // it fails as the API would while `failure` is an auth failure.
    const modelPath = req.method === 'GET' ? /^\/v1\/models\/([^/]+)$/.exec(path) : null;
    if (modelPath) {
      if (fake.failure?.error === 'auth')
        return sendJson(res, 401, errorBody('authentication_error', 'invalid x-api-key'));
      return sendJson(res, 200, {
        type: 'model',
        id: decodeURIComponent(modelPath[1]!),
        display_name: 'Fake model',
        created_at: '2025-01-01T00:00:00Z',
      });
    }
    if (req.method !== 'POST' || path !== '/v1/messages')
      return sendJson(res, 404, errorBody('not_found_error', 'Not found'));
    const body = parseJson(raw);
    if (!body) return sendJson(res, 400, errorBody('invalid_request_error', 'bad JSON'));
    const record: RecordedRequest = {
      method: req.method,
      path,
      headers: req.headers,
      body,
      clientClosed: false,
    };
    requests.push(record);
    closes.watch(res, record);

    const step = fake.failure ?? nextStep(fake.script, fake.fallback, record);
    const stream = body.stream === true;
    const model = typeof body.model === 'string' ? body.model : 'claude-fake';
    if (isFailure(step)) return fail(res, step, stream, model);
    if (stream) return streamReply(res, step, model);
    sendJson(res, 200, messageOf(step, model, blocksOf(step).blocks));
  });
  const fake: FakeAnthropic = {
    baseUrl: http.url,
    requests,
    script: [],
    failure: undefined,
    fallback: () => ({ text: 'ok' }),
    waitForClientClose: closes.waitForClientClose,
    close: http.close,
  };
  return fake;
}
