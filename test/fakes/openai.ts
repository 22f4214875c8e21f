import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  nextStep,
  parseJson,
  readBody,
  sendJson,
  serveHttp,
  startSse,
  watchClientCloses,
} from './http.js';

/**
 * A loopback OpenAI-compatible server for the assistant's tests: a real `node:http` server on
 * 127.0.0.1 that the official `openai` package (in the fakes' own tests) and the assistant's
 * client talk to through a base URL ending in `/v1`. It answers POST /v1/chat/completions as
 * JSON or as server-sent `data:` chunks ending in `[DONE]` (when the request says
 * `stream: true`), lists its models at GET /v1/models, and fails the ways such servers fail.
 */

export interface FakeOpenAIUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  /** `prompt_tokens_details.cached_tokens`: counted inside prompt_tokens, as OpenAI does. */
  cached_tokens?: number;
}

/** One scripted answer: text first, then the tool calls, as the models write them. */
export interface FakeOpenAIReply {
  /** One string, or the deltas it streams in. */
  text?: string | string[];
  toolCalls?: Array<{ id?: string; name: string; arguments: Record<string, unknown> | string }>;
  /** Default: `tool_calls` when there are tool calls, else `stop`. */
  finishReason?: 'stop' | 'length' | 'tool_calls' | 'content_filter';
  usage?: FakeOpenAIUsage;
  /** Default: the request's model. */
  model?: string;
}

export type FakeOpenAIFailure =
  /** 429 with `retry-after` (seconds or a date) when given. */
  | { error: 'rate_limited'; retryAfter?: string }
  /** 401 invalid_api_key (or 403). */
  | { error: 'auth'; status?: 401 | 403 }
  /** 400 context_length_exceeded. */
  | { error: 'context_too_long' }
  /** 500 server_error. */
  | { error: 'server' }
  /** 503, as an overloaded server answers. */
  | { error: 'overloaded' }
  /** Streams one text delta, then an `error` chunk, as some compatible servers do mid-stream. */
  | { error: 'error_mid_stream' }
  /** Streams one text delta (or, not streaming, nothing at all), then stalls until the client goes away. */
  | { error: 'stall' };

export type FakeOpenAIStep = FakeOpenAIReply | FakeOpenAIFailure;

export interface RecordedOpenAIRequest {
  path: string;
  headers: IncomingMessage['headers'];
  /** The parsed JSON body: `model`, `messages`, `tools`, `stream`, `max_tokens`, … */
  body: Record<string, unknown>;
  clientClosed: boolean;
}

export interface FakeOpenAI {
  /** Give this as the base URL: `http://127.0.0.1:<port>/v1`. */
  baseUrl: string;
  /** Every chat completion request, in order of arrival. */
  requests: RecordedOpenAIRequest[];
  /** Answers in order; each is used once. A function gets the request and answers it. */
  script: Array<FakeOpenAIStep | ((request: RecordedOpenAIRequest) => FakeOpenAIStep)>;
  /** When set, every request gets this (the script is left as it is) until it is cleared. */
  failure: FakeOpenAIFailure | undefined;
  /** What answers when the script is empty: default a short text. */
  fallback: (request: RecordedOpenAIRequest) => FakeOpenAIStep;
  /** What GET /v1/models lists. */
  models: string[];
  /** When set, requests without `authorization: Bearer <key>` get 401. */
  apiKey: string | undefined;
  waitForClientClose(index: number): Promise<void>;
  close(): Promise<void>;
}

const isFailure = (step: FakeOpenAIStep): step is FakeOpenAIFailure => 'error' in step;

function errorBody(message: string, type: string, code: string | null) {
  return { error: { message, type, param: null, code } };
}

function usageOf(usage: FakeOpenAIUsage | undefined) {
  const prompt = usage?.prompt_tokens ?? 10;
  const completion = usage?.completion_tokens ?? 5;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: usage?.cached_tokens ?? 0 },
  };
}

function callsOf(reply: FakeOpenAIReply) {
  return (reply.toolCalls ?? []).map((call) => ({
    id: call.id ?? `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`,
    type: 'function' as const,
    function: {
      name: call.name,
      arguments:
        typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
    },
  }));
}

function finishOf(reply: FakeOpenAIReply): string {
  return reply.finishReason ?? (reply.toolCalls?.length ? 'tool_calls' : 'stop');
}

function completionOf(reply: FakeOpenAIReply, model: string) {
  const text = [reply.text ?? []].flat().join('');
  const calls = callsOf(reply);
  return {
    id: `chatcmpl-${randomUUID()}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: reply.model ?? model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: text.length > 0 ? text : null,
          refusal: null,
          ...(calls.length > 0 ? { tool_calls: calls } : {}),
        },
        logprobs: null,
        finish_reason: finishOf(reply),
      },
    ],
    usage: usageOf(reply.usage),
  };
}

/** Splits a text in pieces, so a call's arguments arrive as several deltas. */
function pieces(text: string, size = 7): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length > 0 ? out : [''];
}

function streamReply(
  res: ServerResponse,
  reply: FakeOpenAIReply,
  model: string,
  includeUsage: boolean,
): void {
  const id = `chatcmpl-${randomUUID()}`;
  const created = Math.floor(Date.now() / 1000);
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    res.write(
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: reply.model ?? model, choices, ...extra })}\n\n`,
    );
  startSse(res);
  chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]);
  for (const text of [reply.text ?? []].flat()) {
    chunk([{ index: 0, delta: { content: text }, finish_reason: null }]);
  }
  callsOf(reply).forEach((call, index) => {
    chunk([
      {
        index: 0,
        delta: {
          tool_calls: [
            {
              index,
              id: call.id,
              type: 'function',
              function: { name: call.function.name, arguments: '' },
            },
          ],
        },
        finish_reason: null,
      },
    ]);
    for (const part of pieces(call.function.arguments)) {
      chunk([
        {
          index: 0,
          delta: { tool_calls: [{ index, function: { arguments: part } }] },
          finish_reason: null,
        },
      ]);
    }
  });
  chunk([{ index: 0, delta: {}, finish_reason: finishOf(reply) }]);
  if (includeUsage) chunk([], { usage: usageOf(reply.usage) });
  res.write('data: [DONE]\n\n');
  res.end();
}

function fail(
  res: ServerResponse,
  failure: FakeOpenAIFailure,
  stream: boolean,
  model: string,
): void {
  switch (failure.error) {
    case 'rate_limited':
      return sendJson(
        res,
        429,
        errorBody('Rate limit reached for requests', 'requests', 'rate_limit_exceeded'),
        failure.retryAfter === undefined ? {} : { 'retry-after': failure.retryAfter },
      );
    case 'auth':
      return sendJson(
        res,
        failure.status ?? 401,
        errorBody('Incorrect API key provided', 'invalid_request_error', 'invalid_api_key'),
      );
    case 'context_too_long':
      return sendJson(
        res,
        400,
        errorBody(
          "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
          'invalid_request_error',
          'context_length_exceeded',
        ),
      );
    case 'server':
      return sendJson(res, 500, errorBody('The server had an error', 'server_error', null));
    case 'overloaded':
      return sendJson(res, 503, errorBody('The server is overloaded', 'server_error', null));
    case 'error_mid_stream':
    case 'stall': {
      if (!stream) {
        if (failure.error === 'stall') return; // no answer at all: the client must give up
        return sendJson(res, 500, errorBody('The server had an error', 'server_error', null));
      }
      startSse(res);
      res.write(
        `data: ${JSON.stringify({ id: 'chatcmpl-x', object: 'chat.completion.chunk', created: 0, model, choices: [{ index: 0, delta: { content: 'Let me think' }, finish_reason: null }] })}\n\n`,
      );
      if (failure.error === 'error_mid_stream') {
        res.write(
          `data: ${JSON.stringify(errorBody('The server had an error', 'server_error', null))}\n\n`,
        );
        res.end();
      }
      return; // stall: leave the stream open
    }
  }
}

export async function startFakeOpenAI(): Promise<FakeOpenAI> {
  const requests: RecordedOpenAIRequest[] = [];
  const closes = watchClientCloses(requests);
  const http = await serveHttp(async (req, res) => {
    const raw = await readBody(req);
    const path = (req.url ?? '').split('?')[0]!;
    if (fake.apiKey !== undefined && req.headers.authorization !== `Bearer ${fake.apiKey}`)
      return sendJson(
        res,
        401,
        errorBody('Incorrect API key provided', 'invalid_request_error', 'invalid_api_key'),
      );
    if (req.method === 'GET' && path === '/v1/models') {
      return sendJson(res, 200, {
        object: 'list',
        data: fake.models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'fake' })),
      });
    }
    if (req.method !== 'POST' || path !== '/v1/chat/completions')
      return sendJson(res, 404, errorBody('Not found', 'invalid_request_error', null));
    const body = parseJson(raw);
    if (!body) return sendJson(res, 400, errorBody('bad JSON', 'invalid_request_error', null));
    const record: RecordedOpenAIRequest = { path, headers: req.headers, body, clientClosed: false };
    requests.push(record);
    closes.watch(res, record);
    const step = fake.failure ?? nextStep(fake.script, fake.fallback, record);
    const stream = body.stream === true;
    const model = typeof body.model === 'string' ? body.model : 'gpt-fake';
    if (isFailure(step)) return fail(res, step, stream, model);
    if (!stream) return sendJson(res, 200, completionOf(step, model));
    const options = body.stream_options as { include_usage?: unknown } | undefined;
    streamReply(res, step, model, options?.include_usage === true);
  });
  const fake: FakeOpenAI = {
    baseUrl: `${http.url}/v1`,
    requests,
    script: [],
    failure: undefined,
    fallback: () => ({ text: 'ok' }),
    models: ['gpt-fake'],
    apiKey: undefined,
    waitForClientClose: closes.waitForClientClose,
    close: http.close,
  };
  return fake;
}
