import { Ollama, type ChatResponse, type Message, type Tool, type ToolCall } from 'ollama';
import { streamWatchdog } from './watchdog.js';
import {
  ModelError,
  type ChatMessage,
  type ContentBlock,
  type ModelClient,
  type ModelRequest,
  type ModelResponse,
  makeToolCallId,
} from './types.js';

export interface OllamaClientOptions {
  /** The endpoint's name in the pool, logs and usage rows. */
  id: string;
  model: string;
  /** The endpoint's `baseUrl`, else `OLLAMA_HOST`, else http://127.0.0.1:11434. */
  host: string;
  /** `num_predict` when a request names no maxTokens. */
  maxTokens: number;
  /**
   * Gives up when nothing arrives for this long (a `connection` error); default 5 minutes, as a
   * local model may take that long to load before its first word.
   */
  idleTimeoutMs?: number;
  /**
   * Why this endpoint serves at all when the user chose none, e.g. `no ANTHROPIC_API_KEY set`:
   * said when it does not answer, since the fix is then the missing variable, not Ollama.
   */
  chosenBecause?: string | undefined;
}

/**
 * Our conversation as Ollama messages: the system prompt first; an assistant's tool uses as
 * `tool_calls`; each tool result as a `tool` message named after its call, before any text of
 * the same user turn. Ollama has no error flag on a result, so an error says so in its text.
 */
export function toOllamaMessages(system: string, messages: ChatMessage[]): Message[] {
  const out: Message[] = system ? [{ role: 'system', content: system }] : [];
  const toolNames = new Map<string, string>();
  for (const message of messages) {
    const text = message.content
      .flatMap((block) => (block.type === 'text' ? [block.text] : []))
      .join('\n');
    if (message.role === 'assistant') {
      const calls: ToolCall[] = [];
      for (const block of message.content) {
        if (block.type !== 'tool_use') continue;
        toolNames.set(block.id, block.name);
        calls.push({ function: { name: block.name, arguments: block.input } });
      }
      out.push({
        role: 'assistant',
        content: text,
        ...(calls.length ? { tool_calls: calls } : {}),
      });
      continue;
    }
    for (const block of message.content) {
      if (block.type !== 'tool_result') continue;
      const name = toolNames.get(block.tool_use_id);
      out.push({
        role: 'tool',
        content: block.is_error ? `Error: ${block.content}` : block.content,
        ...(name ? { tool_name: name } : {}),
      });
    }
    if (text.length > 0) out.push({ role: 'user', content: text });
  }
  return out;
}

function toOllamaTools(request: ModelRequest): Tool[] {
  return request.tools.map((tool) => ({
    type: 'function',
    function: {
      name: tool.name,
      description: tool.description,
      parameters: tool.input_schema as NonNullable<Tool['function']['parameters']>,
    },
  }));
}

/** Arguments are an object; some models' templates hand back a JSON string instead. */
function argumentsOf(call: ToolCall): Record<string, unknown> {
  const args: unknown = call.function.arguments;
  if (typeof args === 'string') {
    try {
      const parsed: unknown = JSON.parse(args);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
        return parsed as Record<string, unknown>;
    } catch {
      // not JSON: the model's text is kept whole, so the tool's validation can say what is wrong
    }
    return { input: args };
  }
  return args && typeof args === 'object' ? (args as Record<string, unknown>) : {};
}

export function createOllamaClient(options: OllamaClientOptions): ModelClient {
  const { id, model, host } = options;
  const url = host.replace(/\/+$/, '');
  // The endpoint as a reader of an error needs it: provider, model and where it was asked.
  const where = `${id} (ollama ${model} at ${url})`;

  function toModelError(err: unknown, signal: AbortSignal | undefined): ModelError {
    if (err instanceof ModelError) return err;
    if (signal?.aborted)
      return new ModelError('aborted', `${where}: request aborted`, { endpoint: id });
    const status = (err as { status_code?: unknown }).status_code;
    const message = err instanceof Error ? err.message : String(err);
    if (typeof status === 'number') {
      const kind =
        status === 429
          ? 'rate_limited'
          : status === 401 || status === 403
            ? 'auth'
            : status === 400
              ? 'bad_request'
              : 'server'; // 404 (model not pulled here) and 5xx: another endpoint may answer
      return new ModelError(kind, `${where}: ${status}: ${message}`, { status, endpoint: id });
    }
    // fetch() fails with a TypeError whose cause is the socket's error (ECONNREFUSED, …).
    if (err instanceof TypeError) {
      const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
      const text = options.chosenBecause
        ? `${options.chosenBecause}, so the default is Ollama at ${url}, which did not answer${cause} (${id})`
        : `${where}: connection failed${cause}`;
      return new ModelError('connection', text, { endpoint: id });
    }
    return new ModelError('server', `${where}: ${message}`, { endpoint: id });
  }

  return {
    id,
    provider: 'ollama',
    model,
    async complete(request: ModelRequest): Promise<ModelResponse> {
      const { signal, onText } = request;
      if (signal?.aborted) throw toModelError(undefined, signal);
      // The package aborts only through its own controller, and not before the stream starts;
      // a fetch that carries the caller's signal (and the watchdog's) aborts it at any point.
      const watchdog = streamWatchdog(options.idleTimeoutMs ?? 300_000, signal);
      const client = new Ollama({
        host,
        fetch: (input, init) =>
          fetch(input, {
            ...init,
            signal: init?.signal
              ? AbortSignal.any([init.signal, watchdog.signal])
              : watchdog.signal,
          }),
      });
      let text = '';
      const calls: ToolCall[] = [];
      let last: ChatResponse | undefined;
      try {
        const chunks = await client.chat({
          model,
          messages: toOllamaMessages(request.system, request.messages),
          ...(request.tools.length > 0 ? { tools: toOllamaTools(request) } : {}),
          options: { num_predict: request.maxTokens ?? options.maxTokens },
          stream: true,
        });
        for await (const chunk of chunks) {
          watchdog.touch();
          const piece = chunk.message?.content ?? '';
          if (piece) {
            text += piece;
            onText?.(piece);
          }
          calls.push(...(chunk.message?.tool_calls ?? []));
          if (chunk.done) last = chunk;
        }
      } catch (err) {
        throw watchdog.stalled(id) ?? toModelError(err, signal);
      } finally {
        watchdog.stop();
      }
      const content: ContentBlock[] = text ? [{ type: 'text', text }] : [];
      for (const call of calls) {
        content.push({
          type: 'tool_use',
          id: makeToolCallId(),
          name: call.function.name,
          input: argumentsOf(call),
        });
      }
      return {
        content,
        stopReason:
          calls.length > 0
            ? 'tool_use'
            : last?.done_reason === 'length'
              ? 'max_tokens'
              : 'end_turn',
        // prompt_eval_count counts the tokens Ollama evaluated; a prefix it kept from the last
        // call may be left out, so it can be less than the prompt's size.
        usage: {
          input: last?.prompt_eval_count ?? 0,
          output: last?.eval_count ?? 0,
          cacheRead: 0,
          cacheWrite: 0,
        },
        model: last?.model || model,
        endpoint: id,
      };
    },
  };
}
