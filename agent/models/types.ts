import { randomBytes } from 'node:crypto';

/**
 * The one interface between the loop and any model provider. Content is Anthropic-shaped (the
 * richer of the two formats); each provider translates to and from its own wire format.
 */

export type TextBlock = { type: 'text'; text: string };
export type ToolUseBlock = {
  type: 'tool_use';
  /** Provider ids where given; made up (`toolu_…`-like, unique) where the provider has none. */
  id: string;
  name: string;
  input: Record<string, unknown>;
};
export type ToolResultBlock = {
  type: 'tool_result';
  tool_use_id: string;
  content: string;
  is_error?: boolean;
};
export type ContentBlock = TextBlock | ToolUseBlock | ToolResultBlock;

export interface ChatMessage {
  role: 'user' | 'assistant';
  content: ContentBlock[];
}

/** A tool as the model sees it: a JSON Schema for its input. */
export interface ToolSchema {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

export interface ModelRequest {
  system: string;
  messages: ChatMessage[];
  tools: ToolSchema[];
  maxTokens?: number;
  /** Aborts the request in flight (Ctrl-C, `/stop`); the call then rejects with ModelError 'aborted'. */
  signal?: AbortSignal;
  /** Streamed text as it is written (Anthropic streams; Ollama may call it once). */
  onText?: (delta: string) => void;
  /**
   * The pool starts the answer over (another try, another endpoint) after some text had been
   * streamed: what `onText` delivered so far is void, and the new answer streams from its start.
   */
  onRestart?: () => void;
}

export interface TokenUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence' | 'refusal';

export interface ModelResponse {
  content: ContentBlock[];
  stopReason: StopReason;
  usage: TokenUsage;
  /** The model that answered, and the endpoint (its `id` in the pool) that served it. */
  model: string;
  endpoint: string;
}

export type ModelErrorKind =
  | 'rate_limited' // 429: cool down, honour retry-after
  | 'overloaded' // 529 / "overloaded": cool down
  | 'auth' // 401/402/403: disable the endpoint
  | 'connection' // refused, reset, timeout: retry with backoff, then the next
  | 'context_too_long' // the prompt does not fit: compact, do not fail over
  | 'bad_request' // 400 other than the above: a bug or bad input, do not fail over
  | 'server' // 500s
  | 'aborted'; // the caller's signal

export class ModelError extends Error {
  readonly kind: ModelErrorKind;
  readonly status: number | undefined;
  /** From `retry-after` (seconds or a date) or `retry-after-ms`, when the provider said. */
  readonly retryAfterMs: number | undefined;
  readonly endpoint: string | undefined;

  constructor(
    kind: ModelErrorKind,
    message: string,
    options: { status?: number; retryAfterMs?: number; endpoint?: string; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'ModelError';
    this.kind = kind;
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
    this.endpoint = options.endpoint;
  }
}

/** `retry-after-ms`, else `retry-after` in seconds or as an HTTP date. */
export function retryAfterOf(headers: Headers | undefined, now: Date): number | undefined {
  const ms = headers?.get('retry-after-ms');
  if (ms && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const after = headers?.get('retry-after');
  if (!after) return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(after);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime());
}

/** Ollama's tool calls carry no id, nor do some OpenAI-compatible servers'; ours must, to pair each result with its call. */
export function makeToolCallId(): string {
  return `call_${randomBytes(12).toString('hex')}`;
}

/** One endpoint: a provider, a model, a base URL. */
export interface ModelClient {
  /** Stable name in logs and usage rows, e.g. `anthropic:claude-sonnet-4-5@0`. */
  readonly id: string;
  readonly provider: 'anthropic' | 'ollama' | 'openai';
  readonly model: string;
  complete(request: ModelRequest): Promise<ModelResponse>;
}

/** What the loop holds: one `complete` that picks an endpoint and fails over. */
export interface ModelPool {
  complete(request: ModelRequest, options?: { tags?: string[] }): Promise<ModelResponse>;
  /** Each endpoint's state, for `brain agent --check` and logs. */
  status(): Array<{
    id: string;
    state: 'ready' | 'cooling' | 'disabled';
    until?: string;
    lastError?: string;
  }>;
}
