import type { Clock } from '../../src/index.js';
import { streamWatchdog } from './watchdog.js';
import {
  ModelError,
  makeToolCallId,
  retryAfterOf,
  type ChatMessage,
  type ContentBlock,
  type ModelClient,
  type ModelErrorKind,
  type ModelRequest,
  type ModelResponse,
  type StopReason,
} from './types.js';

/**
 * A client of the OpenAI chat completions protocol, which OpenAI, GitHub Models, OpenRouter,
 * vLLM, llama.cpp's server, LM Studio and LiteLLM all serve. It speaks the wire format with
 * `fetch` rather than through the `openai` package: the protocol is one POST and a stream of
 * `data:` lines, the servers that speak it differ in the extras the package would send, and the
 * assistant starts and idles lighter without a second model SDK. Its tests hold the loopback
 * fake to the official package's parsing, and this client to the fake.
 */

export interface OpenAIClientOptions {
  /** The endpoint's name in the pool, logs and usage rows. */
  id: string;
  model: string;
  /** Up to and including the version, e.g. `https://api.openai.com/v1`, `http://127.0.0.1:8080/v1`. */
  baseUrl: string;
  /** From the variable the endpoint's `apiKeyEnv` names; none for a local server. Never logged. */
  apiKey?: string | undefined;
  /** Used when a request names none. */
  maxTokens: number;
  /**
   * Gives up when nothing arrives for this long, before the response starts or in its stream
   * (a `connection` error); default 2 minutes.
   */
  idleTimeoutMs?: number;
  /** For `retry-after` given as a date. */
  clock?: Clock;
}

export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';

type WireMessage =
  | { role: 'system' | 'user'; content: string }
  | {
      role: 'assistant';
      content: string | null;
      tool_calls?: Array<{
        id: string;
        type: 'function';
        function: { name: string; arguments: string };
      }>;
    }
  | { role: 'tool'; tool_call_id: string; content: string };

/**
 * Our conversation as chat messages: the system prompt first; an assistant's tool uses as
 * `tool_calls` with JSON-text arguments; each tool result as a `tool` message answering its
 * call, before any text of the same user turn. The protocol has no error flag on a result, so
 * an error says so in its text.
 */
export function toOpenAIMessages(system: string, messages: ChatMessage[]): WireMessage[] {
  const out: WireMessage[] = system ? [{ role: 'system', content: system }] : [];
  for (const message of messages) {
    const text = message.content
      .flatMap((block) => (block.type === 'text' ? [block.text] : []))
      .join('\n');
    if (message.role === 'assistant') {
      const calls = message.content.flatMap((block) =>
        block.type === 'tool_use'
          ? [
              {
                id: block.id,
                type: 'function' as const,
                function: { name: block.name, arguments: JSON.stringify(block.input) },
              },
            ]
          : [],
      );
      out.push({
        role: 'assistant',
        content: text.length > 0 ? text : null,
        ...(calls.length > 0 ? { tool_calls: calls } : {}),
      });
      continue;
    }
    for (const block of message.content) {
      if (block.type !== 'tool_result') continue;
      out.push({
        role: 'tool',
        tool_call_id: block.tool_use_id,
        content: block.is_error ? `Error: ${block.content}` : block.content,
      });
    }
    if (text.length > 0) out.push({ role: 'user', content: text });
  }
  return out;
}

/** Arguments arrive as JSON text; a model that wrote something else keeps it whole for the tool's validation. */
function argumentsOf(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // not JSON: kept whole below
  }
  return { input: text };
}

function stopReasonOf(reason: string | null | undefined, calledTools: boolean): StopReason {
  if (calledTools) return 'tool_use';
  switch (reason) {
    case 'length':
      return 'max_tokens';
    case 'content_filter':
      return 'refusal';
    default:
      return 'end_turn'; // stop, or a server that names none
  }
}

interface WireError {
  message?: unknown;
  type?: unknown;
  code?: unknown;
}

function classify(status: number, error: WireError): ModelErrorKind {
  const code = typeof error.code === 'string' ? error.code : '';
  const message = typeof error.message === 'string' ? error.message : '';
  if (status === 429) return 'rate_limited';
  if (status === 401 || status === 402 || status === 403) return 'auth';
  if (
    status === 413 ||
    code === 'context_length_exceeded' ||
    /context (length|window)|maximum context|too many tokens/i.test(message)
  )
    return 'context_too_long';
  if (status === 503 || status === 529) return 'overloaded';
  // A model not served here may be served by the next endpoint: not the caller's bug.
  if (status === 404) return 'server';
  if (status >= 400 && status < 500) return 'bad_request';
  return 'server';
}

/** One streamed chunk, as far as this client reads it. */
interface Chunk {
  model?: string;
  error?: WireError;
  choices?: Array<{
    delta?: {
      content?: string | null;
      tool_calls?: Array<{
        index?: number;
        id?: string;
        function?: { name?: string; arguments?: string };
      }>;
    };
    finish_reason?: string | null;
  }>;
  usage?: {
    prompt_tokens?: number;
    completion_tokens?: number;
    prompt_tokens_details?: { cached_tokens?: number } | null;
  } | null;
}

/** Yields the JSON text of each `data:` event of a server-sent event stream, until `[DONE]`. */
async function* dataEvents(
  body: ReadableStream<Uint8Array>,
  touch: () => void,
): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  for await (const bytes of body) {
    touch();
    buffer += decoder.decode(bytes, { stream: true });
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline).replace(/\r$/, '');
      buffer = buffer.slice(newline + 1);
      if (line === '') {
        // An empty line ends an event; its data lines join with newlines.
        if (data.length > 0) {
          const event = data.join('\n');
          data = [];
          if (event === '[DONE]') return;
          yield event;
        }
      } else if (line.startsWith('data:')) {
        data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
      }
      // `:` comments (keep-alives), `event:` and `id:` lines carry nothing this client reads.
    }
  }
  if (data.length > 0 && data.join('\n') !== '[DONE]') yield data.join('\n');
}

export function createOpenAIClient(options: OpenAIClientOptions): ModelClient {
  const { id, model, apiKey } = options;
  const clock = options.clock ?? (() => new Date());
  const url = options.baseUrl.replace(/\/+$/, '');
  // The endpoint as a reader of an error needs it: provider, model and where it was asked.
  const where = `${id} (openai ${model} at ${url})`;
  // The key must not reach a log or an error, whatever the server echoed.
  const scrub = (text: string) => (apiKey ? text.replaceAll(apiKey, '[redacted]') : text);

  function connectionError(err: unknown, signal: AbortSignal | undefined): ModelError {
    if (err instanceof ModelError) return err;
    if (signal?.aborted)
      return new ModelError('aborted', `${where}: request aborted`, { endpoint: id });
    // fetch() fails with a TypeError whose cause is the socket's error (ECONNREFUSED, …).
    const cause =
      err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
    const message = err instanceof TypeError ? `connection failed${cause}` : String(err);
    return new ModelError('connection', scrub(`${where}: ${message}`), { endpoint: id });
  }

  async function httpError(res: Response): Promise<ModelError> {
    const text = await res.text().catch(() => '');
    let error: WireError = {};
    try {
      const parsed = JSON.parse(text) as { error?: WireError | string; message?: unknown };
      error =
        typeof parsed.error === 'string'
          ? { message: parsed.error }
          : (parsed.error ?? { message: parsed.message });
    } catch {
      error = { message: text.slice(0, 300) };
    }
    const kind = classify(res.status, error);
    const said =
      typeof error.message === 'string' && error.message ? error.message : res.statusText;
    return new ModelError(kind, scrub(`${where}: ${res.status}: ${said}`), {
      status: res.status,
      endpoint: id,
      ...(kind === 'rate_limited' || kind === 'overloaded'
        ? { retryAfterMs: retryAfterOf(res.headers, clock()) }
        : {}),
    });
  }

  return {
    id,
    provider: 'openai',
    model,
    async complete(request: ModelRequest): Promise<ModelResponse> {
      const { signal, onText } = request;
      if (signal?.aborted) throw connectionError(undefined, signal);
      const body = {
        model,
        messages: toOpenAIMessages(request.system, request.messages),
        ...(request.tools.length > 0
          ? {
              tools: request.tools.map((tool) => ({
                type: 'function',
                function: {
                  name: tool.name,
                  description: tool.description,
                  parameters: tool.input_schema,
                },
              })),
            }
          : {}),
        // `max_tokens` rather than OpenAI's newer `max_completion_tokens`: every compatible
        // server reads it, and OpenAI still does for its chat models.
        max_tokens: request.maxTokens ?? options.maxTokens,
        stream: true,
        stream_options: { include_usage: true },
      };
      const watchdog = streamWatchdog(options.idleTimeoutMs ?? 120_000, signal);
      let text = '';
      const calls: Array<{ id: string; name: string; arguments: string }> = [];
      let finish: string | null | undefined;
      let answeredBy = model;
      let usage: Chunk['usage'];
      try {
        let res: Response;
        try {
          res = await fetch(`${url}/chat/completions`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              accept: 'text/event-stream',
              ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
            },
            body: JSON.stringify(body),
            signal: watchdog.signal,
          });
        } catch (err) {
          throw connectionError(err, signal);
        }
        watchdog.touch();
        if (!res.ok) throw await httpError(res);
        if (!res.body) throw new ModelError('server', `${where}: empty response`, { endpoint: id });
        const type = res.headers.get('content-type') ?? '';
        if (type.includes('application/json')) {
          // A server that ignores `stream` answers with one completion.
          const whole = (await res.json()) as {
            model?: string;
            choices?: Array<{
              message?: {
                content?: string | null;
                tool_calls?: Array<{
                  id?: string;
                  function?: { name?: string; arguments?: string };
                }>;
              };
              finish_reason?: string | null;
            }>;
            usage?: Chunk['usage'];
          };
          const choice = whole.choices?.[0];
          text = choice?.message?.content ?? '';
          if (text) onText?.(text);
          for (const call of choice?.message?.tool_calls ?? []) {
            calls.push({
              id: call.id || makeToolCallId(),
              name: call.function?.name ?? '',
              arguments: call.function?.arguments ?? '',
            });
          }
          finish = choice?.finish_reason;
          answeredBy = whole.model || model;
          usage = whole.usage;
        } else {
          for await (const event of dataEvents(res.body, watchdog.touch)) {
            let chunk: Chunk;
            try {
              chunk = JSON.parse(event) as Chunk;
            } catch {
              continue; // a line that is not JSON carries nothing to keep
            }
            if (chunk.error) {
              // Some servers report a failure inside a stream that began with 200.
              const kind = classify(500, chunk.error);
              const said = typeof chunk.error.message === 'string' ? chunk.error.message : 'error';
              throw new ModelError(kind, scrub(`${where}: ${said}`), { endpoint: id });
            }
            if (chunk.model) answeredBy = chunk.model;
            if (chunk.usage) usage = chunk.usage;
            for (const choice of chunk.choices ?? []) {
              const piece = choice.delta?.content;
              if (piece) {
                text += piece;
                onText?.(piece);
              }
              for (const delta of choice.delta?.tool_calls ?? []) {
                // A call's first delta names it; the later ones carry pieces of its arguments.
                const index = delta.index ?? calls.length - 1;
                const call = (calls[index] ??= { id: '', name: '', arguments: '' });
                if (delta.id) call.id = delta.id;
                if (delta.function?.name) call.name += delta.function.name;
                if (delta.function?.arguments) call.arguments += delta.function.arguments;
              }
              if (choice.finish_reason) finish = choice.finish_reason;
            }
          }
        }
      } catch (err) {
        throw watchdog.stalled(id) ?? connectionError(err, signal);
      } finally {
        watchdog.stop();
      }
      const content: ContentBlock[] = text ? [{ type: 'text', text }] : [];
      for (const call of calls.filter((c) => c !== undefined && c.name)) {
        content.push({
          type: 'tool_use',
          id: call.id || makeToolCallId(),
          name: call.name,
          input: argumentsOf(call.arguments),
        });
      }
      // The protocol counts cached tokens inside prompt_tokens; ours keeps them apart, so that
      // input + cacheRead is the prompt's whole size, as with Anthropic.
      const cached = usage?.prompt_tokens_details?.cached_tokens ?? 0;
      return {
        content,
        stopReason: stopReasonOf(
          finish,
          content.some((b) => b.type === 'tool_use'),
        ),
        usage: {
          input: Math.max(0, (usage?.prompt_tokens ?? 0) - cached),
          output: usage?.completion_tokens ?? 0,
          cacheRead: cached,
          cacheWrite: 0,
        },
        model: answeredBy,
        endpoint: id,
      };
    },
  };
}
