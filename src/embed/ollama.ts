import { Ollama } from 'ollama';
import { BrainError } from '../errors.js';
import {
  EmbedderError,
  checkVectors,
  type EmbedKind,
  type EmbedOptions,
  type Embedder,
} from './embedder.js';

export interface OllamaEmbedderOptions {
  host: string;
  model: string;
  /** Per call; a model that is loading can take seconds on its first call. */
  timeoutMs?: number;
  batchSize?: number;
}

/** Dimensions of well-known models, checked on every answer; others are learned from the first. */
const KNOWN_DIMENSIONS: Record<string, number> = {
  'nomic-embed-text': 768,
  'mxbai-embed-large': 1024,
  'all-minilm': 384,
  'snowflake-arctic-embed': 1024,
};

/** nomic-embed-text was trained with task prefixes and needs them. */
function prefixFor(model: string, kind: EmbedKind): string {
  if (!model.startsWith('nomic-embed-text')) return '';
  return kind === 'query' ? 'search_query: ' : 'search_document: ';
}

function baseName(model: string): string {
  return model.replace(/:latest$/, '');
}

/** Embeddings from an Ollama server through the `ollama` client (`/api/embed`, many inputs per call). */
export function createOllamaEmbedder(options: OllamaEmbedderOptions): Embedder {
  const { host, model } = options;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const expected = KNOWN_DIMENSIONS[baseName(model)];
  return {
    provider: 'ollama',
    model: baseName(model),
    batchSize: options.batchSize ?? 32,
    async embed(texts: string[], kind: EmbedKind, callOptions: EmbedOptions = {}) {
      if (texts.length === 0) return [];
      const client = new Ollama({ host, fetch: guardedFetch(timeoutMs, callOptions.signal) });
      const prefix = prefixFor(baseName(model), kind);
      let response: { embeddings?: unknown };
      try {
        response = await client.embed({
          model,
          input: texts.map((t) => prefix + t),
          truncate: true,
        });
      } catch (err) {
        throw ollamaError(err, host, model, timeoutMs);
      }
      const vectors = response.embeddings;
      if (!Array.isArray(vectors) || !vectors.every((v) => Array.isArray(v))) {
        throw new BrainError('UPSTREAM_FAILED', `Ollama at ${host} answered without embeddings`);
      }
      return checkVectors(vectors as unknown[][], texts.length, `Ollama (${model})`, expected);
    },
  };
}

export type OllamaProbe = { ok: true } | { ok: false; reason: string };

/** Does an Ollama server answer at `host` within `timeoutMs`, and does it have `model`? */
export async function probeOllama(
  host: string,
  model: string,
  timeoutMs: number,
): Promise<OllamaProbe> {
  const client = new Ollama({ host, fetch: guardedFetch(timeoutMs) });
  try {
    const { models } = await client.list();
    const want = baseName(model);
    if (!models.some((m) => baseName(m.name) === want || m.name === model)) {
      return {
        ok: false,
        reason: `Ollama at ${host} has no model ${model} (run: ollama pull ${model})`,
      };
    }
    return { ok: true };
  } catch (err) {
    return { ok: false, reason: ollamaError(err, host, model, timeoutMs).message };
  }
}

/**
 * fetch with a deadline (and the caller's abort signal). Error answers that are not JSON are turned
 * into JSON ones, because the ollama client logs to stdout when it meets them, and stdout is the
 * CLI's answer and the MCP server's protocol channel.
 */
function guardedFetch(timeoutMs: number, signal?: AbortSignal): typeof fetch {
  return async (input, init) => {
    const signals = [AbortSignal.timeout(timeoutMs), ...(signal ? [signal] : [])];
    const response = await fetch(input, { ...init, signal: AbortSignal.any(signals) });
    if (response.ok || response.headers.get('content-type')?.includes('application/json')) {
      return response;
    }
    const text = (await response.text().catch(() => '')).slice(0, 200);
    return new Response(JSON.stringify({ error: text || response.statusText }), {
      status: response.status,
      statusText: response.statusText,
      headers: { 'content-type': 'application/json' },
    });
  };
}

/** One clear message for every way a call to Ollama can fail. Never includes the texts. */
function ollamaError(err: unknown, host: string, model: string, timeoutMs: number): EmbedderError {
  const e = err as {
    name?: string;
    message?: string;
    status_code?: number;
    cause?: { code?: string };
  };
  let message: string;
  let unavailable = false;
  if (e?.name === 'TimeoutError') {
    unavailable = true;
    message = `Ollama at ${host} did not answer within ${Math.round(timeoutMs / 100) / 10} s`;
  } else if (e?.name === 'AbortError') {
    unavailable = true;
    message = `the call to Ollama at ${host} was cancelled`;
  } else if (typeof e?.status_code === 'number') {
    const hint = e.status_code === 404 ? ` (run: ollama pull ${model})` : '';
    message = `Ollama at ${host} answered HTTP ${e.status_code}: ${e.message ?? ''}${hint}`;
  } else if (e instanceof SyntaxError) {
    message = `Ollama at ${host} answered with invalid JSON`;
  } else {
    unavailable = true;
    const code = e?.cause?.code ? ` (${e.cause.code})` : '';
    message = `cannot reach Ollama at ${host}: ${e?.message ?? String(err)}${code}`;
  }
  return new EmbedderError(message, { unavailable, cause: err });
}
