import { BrainError, type Brain, type Clock, type Extractor } from '../../src/index.js';
import type { AssistantConfig } from '../config.js';
import type { Log } from '../log.js';
import { createModels } from '../models/create.js';
import { createModelExtractor } from './model-extractor.js';

export interface ConfiguredExtractor {
  extractor: Extractor;
  /** The endpoint it reads with (`anthropic:claude-haiku-4-5@1`). */
  endpoint: string;
}

/**
 * The model extractor on the endpoint `extract.model` names, or undefined when the config names
 * none (then the offline extractor reads). The endpoint gets a pool of its own: the assistant's
 * turns and the extraction do not cool each other's endpoints down, and extraction never fails
 * over to an endpoint it was not told to use. Its SDK loads on the first call.
 */
export function configuredExtractor(
  config: AssistantConfig,
  deps: { brain?: Pick<Brain, 'assistant'>; log: Log; clock: Clock; signal?: AbortSignal },
): ConfiguredExtractor | undefined {
  const choice = config.extract?.model;
  if (!choice) return undefined;
  if (choice.endpoint.provider === 'anthropic' && !config.secrets.anthropicApiKey)
    throw new BrainError(
      'INVALID_INPUT',
      `extract.model: ${choice.id} is an anthropic endpoint and needs ANTHROPIC_API_KEY in the environment`,
    );
  const { pool } = createModels({ endpoints: [choice.endpoint] }, config.secrets, {
    clock: deps.clock,
    log: deps.log,
  });
  const extractor = createModelExtractor({
    model: pool,
    endpoint: choice.id,
    log: deps.log,
    clock: deps.clock,
    ...(deps.brain ? { brain: deps.brain } : {}),
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
  return { extractor, endpoint: choice.id };
}
