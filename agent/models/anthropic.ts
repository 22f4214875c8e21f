import Anthropic from '@anthropic-ai/sdk';
import type { Clock } from '../../src/index.js';
import type { ModelLog } from './pool.js';
import { streamWatchdog } from './watchdog.js';
import {
  ModelError,
  type ChatMessage,
  type ContentBlock,
  type ModelClient,
  type ModelErrorKind,
  type ModelRequest,
  type ModelResponse,
  retryAfterOf,
  type StopReason,
  type ToolSchema,
} from './types.js';

export interface AnthropicClientOptions {
  /** The endpoint's name in the pool, logs and usage rows. */
  id: string;
  model: string;
  /** From `ANTHROPIC_API_KEY`; never logged, never in an error. */
  apiKey: string;
  /** The endpoint's `baseUrl`, else `ANTHROPIC_BASE_URL`, else the SDK's default. */
  baseUrl?: string | undefined;
  /** Used when a request names none. */
  maxTokens: number;
  /** Until the response starts (the SDK's `timeout`); default 2 minutes. */
  timeoutMs?: number;
  /** Gives up on a stream with no event for this long (a `connection` error); default 2 minutes. */
  idleTimeoutMs?: number;
  /** The SDK's own retries: default 0, so that failing over is the pool's job and is fast. */
  maxRetries?: number;
  /** For `retry-after` given as a date. */
  clock?: Clock;
  /** Where the SDK's deprecation notices go instead of the console. */
  log?: ModelLog;
  /** Models whose deprecation notice is already logged: shared by a pool's clients, so once a model. */
  warnedModels?: Set<string>;
}

type Param = Anthropic.MessageCreateParamsStreaming;

const ephemeral = { type: 'ephemeral' } as const;

/** Our blocks are Anthropic's shape already; the API refuses empty text blocks, so they go. */
function toParamMessages(messages: ChatMessage[]): Anthropic.MessageParam[] {
  return messages.map((message) => ({
    role: message.role,
    content: message.content
      .filter((block) => block.type !== 'text' || block.text.length > 0)
      .map((block): Anthropic.ContentBlockParam => {
        switch (block.type) {
          case 'text':
            return { type: 'text', text: block.text };
          case 'tool_use':
            return { type: 'tool_use', id: block.id, name: block.name, input: block.input };
          case 'tool_result':
            return {
              type: 'tool_result',
              tool_use_id: block.tool_use_id,
              content: block.content,
              ...(block.is_error ? { is_error: true } : {}),
            };
        }
      }),
  }));
}

/** Tools, with the cache breakpoint on the last: the whole tool list is cached as one prefix. */
function toParamTools(tools: ToolSchema[]): Anthropic.Tool[] {
  return tools.map((tool, i) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.input_schema as Anthropic.Tool.InputSchema,
    ...(i === tools.length - 1 ? { cache_control: ephemeral } : {}),
  }));
}

function fromContent(content: Anthropic.ContentBlock[]): ContentBlock[] {
  const out: ContentBlock[] = [];
  for (const block of content) {
    if (block.type === 'text' && block.text.length > 0)
      out.push({ type: 'text', text: block.text });
    if (block.type === 'tool_use') {
      out.push({
        type: 'tool_use',
        id: block.id,
        name: block.name,
        input: (block.input ?? {}) as Record<string, unknown>,
      });
    }
    // thinking and server-side tool blocks are not part of our conversation format
  }
  return out;
}

function fromStopReason(reason: Anthropic.StopReason | null): StopReason {
  switch (reason) {
    case 'tool_use':
    case 'max_tokens':
    case 'stop_sequence':
    case 'refusal':
      return reason;
    case 'model_context_window_exceeded':
      return 'max_tokens';
    default:
      return 'end_turn'; // end_turn, pause_turn, or none given
  }
}

/** The API's own error text (`{error: {type, message}}`), without the SDK's JSON dump. */
function apiMessage(err: InstanceType<typeof Anthropic.APIError>): string {
  const body = err.error as { error?: { message?: unknown } } | undefined;
  const inner = body?.error?.message;
  return typeof inner === 'string' ? inner : err.message;
}

function classify(err: InstanceType<typeof Anthropic.APIError>): ModelErrorKind {
  const status = err.status;
  const message = apiMessage(err);
  if (err.type === 'overloaded_error' || status === 529) return 'overloaded';
  if (status === 429) return 'rate_limited';
  if (status === 401 || status === 402 || status === 403) return 'auth';
  if (status === 413 || (status === 400 && /prompt is too long/i.test(message)))
    return 'context_too_long';
  // A model that does not exist here may exist on the next endpoint: not the caller's bug.
  if (status === 404) return 'server';
  if (status !== undefined && status >= 400 && status < 500) return 'bad_request';
  return 'server';
}

export function createAnthropicClient(options: AnthropicClientOptions): ModelClient {
  const { id, model, apiKey } = options;
  const clock = options.clock ?? (() => new Date());
  const sdk = new Anthropic({
    apiKey,
    baseURL: options.baseUrl ?? null,
    maxRetries: options.maxRetries ?? 0,
    timeout: options.timeoutMs ?? 120_000,
  });
  const url = (options.baseUrl ?? sdk.baseURL).replace(/\/+$/, '');
  // The endpoint as a reader of an error needs it: provider, model and where it was asked.
  const where = `${id} (anthropic ${model} at ${url})`;
  const warnedModels = options.warnedModels ?? new Set<string>();
  // The key must not reach a log or an error, whatever the server echoed.
  const scrub = (text: string) => (apiKey ? text.replaceAll(apiKey, '[redacted]') : text);

  function toModelError(err: unknown, signal: AbortSignal | undefined): ModelError {
    if (err instanceof ModelError) return err;
    if (signal?.aborted || err instanceof Anthropic.APIUserAbortError) {
      return new ModelError('aborted', `${where}: request aborted`, { endpoint: id });
    }
    if (err instanceof Anthropic.APIConnectionError) {
      const what = err instanceof Anthropic.APIConnectionTimeoutError ? 'timed out' : 'failed';
      const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
      return new ModelError('connection', scrub(`${where}: connection ${what}${cause}`), {
        endpoint: id,
      });
    }
    if (err instanceof Anthropic.APIError) {
      const kind = classify(err);
      const status = err.status ?? undefined;
      const label = [status, err.type].filter((x) => x !== undefined && x !== null).join(' ');
      return new ModelError(kind, scrub(`${where}: ${label}: ${apiMessage(err)}`), {
        endpoint: id,
        ...(status !== undefined ? { status } : {}),
        ...(kind === 'rate_limited' || kind === 'overloaded'
          ? { retryAfterMs: retryAfterOf(err.headers, clock()) }
          : {}),
      });
    }
    const message = err instanceof Error ? err.message : String(err);
    return new ModelError('server', scrub(`${where}: ${message}`), { endpoint: id });
  }

  /**
   * Starts the SDK's stream. The SDK prints a deprecation notice with `console.warn` on every
   * request for a deprecated model (it does not use its `logger` for it), synchronously inside
   * `messages.stream()`: for that synchronous call only, the notice goes to our log, once a model,
   * so it never reaches a chat, a reply or the service's stderr again.
   */
  function startStream(params: Param, signal: AbortSignal) {
    const consoleWarn = console.warn;
    console.warn = (...args: unknown[]) => {
      const text = args.map(String).join(' ');
      if (!warnedModels.has(model)) {
        warnedModels.add(model);
        options.log?.('warn', 'model_deprecated', { endpoint: id, model, notice: text });
      }
    };
    try {
      return sdk.messages.stream(params, { signal });
    } finally {
      console.warn = consoleWarn;
    }
  }

  return {
    id,
    provider: 'anthropic',
    model,
    async complete(request: ModelRequest): Promise<ModelResponse> {
      const { signal, onText } = request;
      if (signal?.aborted) throw toModelError(undefined, signal);
      const params: Param = {
        model,
        max_tokens: request.maxTokens ?? options.maxTokens,
        messages: toParamMessages(request.messages),
        stream: true,
      };
      // The system prompt ends in a cache breakpoint: tools + system are one cached prefix.
      if (request.system) {
        params.system = [{ type: 'text', text: request.system, cache_control: ephemeral }];
      }
      if (request.tools.length > 0) params.tools = toParamTools(request.tools);
      const watchdog = streamWatchdog(options.idleTimeoutMs ?? 120_000, signal);
      try {
        const stream = startStream(params, watchdog.signal);
        stream.on('connect', () => watchdog.touch());
        stream.on('streamEvent', () => watchdog.touch());
        if (onText) stream.on('text', (delta) => onText(delta));
        const message = await stream.finalMessage();
        return {
          content: fromContent(message.content),
          stopReason: fromStopReason(message.stop_reason),
          // Anthropic's input_tokens leaves out the cached part: the prompt's whole size is
          // input + cacheRead + cacheWrite (what compaction should weigh).
          usage: {
            input: message.usage.input_tokens,
            output: message.usage.output_tokens,
            cacheRead: message.usage.cache_read_input_tokens ?? 0,
            cacheWrite: message.usage.cache_creation_input_tokens ?? 0,
          },
          model: message.model || model,
          endpoint: id,
        };
      } catch (err) {
        throw watchdog.stalled(id) ?? toModelError(err, signal);
      } finally {
        watchdog.stop();
      }
    },
  };
}
