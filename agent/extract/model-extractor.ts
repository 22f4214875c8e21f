import type { Brain, Clock, ExtractedEntry, Extractor, ExtractTurn } from '../../src/index.js';
import type { Log } from '../log.js';
import type { ChatMessage, ModelPool, ModelResponse } from '../models/types.js';
import { parseAnswer, type AnswerEntry } from './answer.js';
import { EXTRACT_SYSTEM, extractPrompt, repairPrompt } from './prompt.js';

/**
 * The model extractor's version, recorded with what it learns. Raise it whenever the prompt
 * (prompt.ts) or the reading of answers (answer.ts) changes what is learned: the drain then reads
 * every message again with the new one.
 */
export const MODEL_EXTRACTOR_VERSION = 1;

/** What a model call is recorded under in the brain's usage (`brain usage --by source`). */
export const EXTRACTION_USAGE_SOURCE = 'extraction';

/** Room for a turn's entries; an answer cut short by it is repaired or refused like any other. */
const MAX_ANSWER_TOKENS = 1_024;

export interface ModelExtractorOptions {
  /** What answers: a pool serving the extraction's endpoint. */
  model: Pick<ModelPool, 'complete'>;
  /** The endpoint's id in the assistant's pool (`anthropic:claude-haiku-4-5@1`): usage rows, logs, errors. */
  endpoint: string;
  /** Where each call's tokens are recorded; without it, nowhere. */
  brain?: Pick<Brain, 'assistant'>;
  log: Log;
  clock: Clock;
  /** Aborts the call in flight (the service stopping); the read then fails and is retried. */
  signal?: AbortSignal;
}

/** A read that got no usable answer, twice: the drain keeps the message queued for a retry. */
export class ExtractAnswerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExtractAnswerError';
  }
}

/**
 * An extractor that asks a model what a turn teaches: the turn and those before it go to the
 * endpoint as data, the answer must be JSON entries (checked; cut out of fences or prose when it
 * is wrapped; asked for once more when it cannot be read, then refused). Each call's tokens are
 * recorded in the brain's usage. The answer is only ever returned as entries to store.
 */
export function createModelExtractor(options: ModelExtractorOptions): Extractor {
  const { model, endpoint, brain, log, clock, signal } = options;

  const record = (response: ModelResponse, turn: ExtractTurn) => {
    if (!brain) return;
    try {
      brain.assistant.recordUsage({
        source: EXTRACTION_USAGE_SOURCE,
        model: response.model,
        endpoint,
        input_tokens: response.usage.input,
        output_tokens: response.usage.output,
        cache_read_tokens: response.usage.cacheRead,
        cache_write_tokens: response.usage.cacheWrite,
        message_id: turn.id,
        at: clock().toISOString(),
      });
    } catch (err) {
      // The call is made and its answer good: a lost usage row is not worth reading it again.
      log('warn', 'extraction.usage_failed', { endpoint, error: (err as Error).message });
    }
  };

  const ask = async (messages: ChatMessage[], turn: ExtractTurn): Promise<ModelResponse> => {
    const started = clock().getTime();
    const response = await model.complete({
      system: EXTRACT_SYSTEM,
      messages,
      tools: [],
      maxTokens: MAX_ANSWER_TOKENS,
      ...(signal ? { signal } : {}),
    });
    record(response, turn);
    log('debug', 'extraction.call', {
      endpoint,
      message: turn.id,
      input_tokens: response.usage.input,
      output_tokens: response.usage.output,
      ms: clock().getTime() - started,
    });
    return response;
  };

  return {
    name: 'model',
    version: MODEL_EXTRACTOR_VERSION,
    async extract(turn, before) {
      const messages: ChatMessage[] = [
        { role: 'user', content: [{ type: 'text', text: extractPrompt(turn, before) }] },
      ];
      const first = await ask(messages, turn);
      if (first.stopReason === 'refusal') {
        // The model will not read this turn: nothing is learned from it, and asking again
        // would only be refused again.
        log('warn', 'extraction.refused', { endpoint, message: turn.id });
        return [];
      }
      const firstText = textOf(first);
      let parsed = parseAnswer(firstText);
      if (!parsed.ok) {
        log('warn', 'extraction.repair', { endpoint, message: turn.id, problem: parsed.problem });
        const again = await ask(
          [
            ...messages,
            { role: 'assistant', content: [{ type: 'text', text: firstText || '(empty)' }] },
            { role: 'user', content: [{ type: 'text', text: repairPrompt(parsed.problem) }] },
          ],
          turn,
        );
        const second = parseAnswer(textOf(again));
        if (!second.ok)
          throw new ExtractAnswerError(
            `${endpoint} gave no usable entries twice: ${parsed.problem}; then ${second.problem}`,
          );
        parsed = second;
      }
      return parsed.entries.map((entry) => toEntry(entry, turn, before));
    },
  };
}

function textOf(response: ModelResponse): string {
  return response.content
    .map((block) => (block.type === 'text' ? block.text : ''))
    .join('')
    .trim();
}

/**
 * An entry as the brain stores it: its sources only ids among the turns given (the turn read
 * first, always there), never one the answer made up or copied from a turn's text.
 */
function toEntry(
  entry: AnswerEntry,
  turn: ExtractTurn,
  before: readonly ExtractTurn[],
): ExtractedEntry {
  const given = new Set(before.map((b) => b.id));
  const cited = entry.sources.filter((id) => given.has(id));
  return {
    content: entry.content,
    category: entry.category,
    importance: entry.importance,
    sources: [...new Set([turn.id, ...cited])],
    ...(entry.key ? { key: entry.key } : {}),
  };
}
