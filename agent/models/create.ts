import { BrainError, type Clock } from '../../src/index.js';
import type { EndpointConfig, ModelsConfig } from './config.js';
import { createModelPool, type ModelLog, type PoolEndpoint, type PoolOptions } from './pool.js';
import type { ModelClient, ModelPool } from './types.js';

/** What the models need from the environment; the config loader reads it, nothing here does. */
export interface ModelSecrets {
  /** `ANTHROPIC_API_KEY` */
  anthropicApiKey?: string | undefined;
  /** `ANTHROPIC_BASE_URL`: used by anthropic endpoints that name no `baseUrl`. */
  anthropicBaseUrl?: string | undefined;
  /** `OLLAMA_HOST`: used by ollama endpoints that name no `baseUrl`. */
  ollamaHost?: string | undefined;
  /** The environment's values of the variables openai endpoints name in `apiKeyEnv`. */
  apiKeys?: Readonly<Record<string, string | undefined>>;
}

export interface CreateModelsOptions {
  clock: Clock;
  log: ModelLog;
  sleep?: PoolOptions['sleep'];
  backoff?: PoolOptions['backoff'];
  cooldown?: PoolOptions['cooldown'];
}

export const DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434';

/**
 * A client whose provider module (and its SDK) is loaded on its first request, not when the
 * assistant is built: `brain agent` is ready sooner, and the first turn pays the load once.
 */
function lazyClient(
  id: string,
  endpoint: EndpointConfig,
  load: () => Promise<ModelClient>,
): ModelClient {
  let loading: Promise<ModelClient> | undefined;
  return {
    id,
    provider: endpoint.provider,
    model: endpoint.model,
    async complete(request) {
      if (!loading) {
        loading = load();
        // A failed load is not kept: the next request tries again.
        loading.catch(() => (loading = undefined));
      }
      return (await loading).complete(request);
    },
  };
}

function clientOf(
  endpoint: EndpointConfig,
  id: string,
  path: string,
  secrets: ModelSecrets,
  clock: Clock,
  shared: { log: ModelLog; warnedModels: Set<string>; chosenBecause?: string | undefined },
): ModelClient {
  if (endpoint.provider === 'ollama') {
    return lazyClient(id, endpoint, async () => {
      const { createOllamaClient } = await import('./ollama.js');
      return createOllamaClient({
        id,
        model: endpoint.model,
        host: endpoint.baseUrl ?? secrets.ollamaHost ?? DEFAULT_OLLAMA_HOST,
        maxTokens: endpoint.maxTokens,
        chosenBecause: shared.chosenBecause,
      });
    });
  }
  if (endpoint.provider === 'openai') {
    // Checked now, not on the first request: a missing key is a config error at start.
    const variable = endpoint.apiKeyEnv;
    const apiKey = variable === undefined ? undefined : secrets.apiKeys?.[variable];
    if (variable !== undefined && !apiKey) {
      throw new BrainError(
        'INVALID_INPUT',
        `${path}.apiKeyEnv: ${variable} is not set in the environment`,
      );
    }
    return lazyClient(id, endpoint, async () => {
      const { createOpenAIClient, DEFAULT_OPENAI_BASE_URL } = await import('./openai.js');
      return createOpenAIClient({
        id,
        model: endpoint.model,
        baseUrl: endpoint.baseUrl ?? DEFAULT_OPENAI_BASE_URL,
        apiKey,
        maxTokens: endpoint.maxTokens,
        clock,
      });
    });
  }
  // Checked now, not on the first request: a missing key is a config error at start.
  const apiKey = secrets.anthropicApiKey;
  if (!apiKey) {
    throw new BrainError(
      'INVALID_INPUT',
      `${path}.provider: anthropic needs ANTHROPIC_API_KEY in the environment`,
    );
  }
  return lazyClient(id, endpoint, async () => {
    const { createAnthropicClient } = await import('./anthropic.js');
    return createAnthropicClient({
      id,
      model: endpoint.model,
      apiKey,
      baseUrl: endpoint.baseUrl ?? secrets.anthropicBaseUrl,
      maxTokens: endpoint.maxTokens,
      clock,
      log: shared.log,
      warnedModels: shared.warnedModels,
    });
  });
}

/**
 * The assistant's models from its config: `pool` serves turns; `compaction` serves summaries,
 * from `compactionModel` first and the pool's endpoints after it, or is the pool itself when
 * no `compactionModel` is named. Endpoint ids are `provider:model@index` (`@compaction`).
 */
export function createModels(
  config: ModelsConfig,
  secrets: ModelSecrets,
  options: CreateModelsOptions,
): { pool: ModelPool; compaction: ModelPool } {
  const { clock } = options;
  const poolOptions: PoolOptions = {
    clock,
    log: options.log,
    ...(options.sleep ? { sleep: options.sleep } : {}),
    ...(options.backoff ? { backoff: options.backoff } : {}),
    ...(options.cooldown ? { cooldown: options.cooldown } : {}),
  };
  const shared = {
    log: options.log,
    warnedModels: new Set<string>(),
    chosenBecause: config.chosenBecause,
  };
  const endpoints: PoolEndpoint[] = config.endpoints.map((endpoint, i) => ({
    client: clientOf(
      endpoint,
      `${endpoint.provider}:${endpoint.model}@${i}`,
      `models.endpoints.${i}`,
      secrets,
      clock,
      shared,
    ),
    priority: endpoint.priority,
    tags: endpoint.tags,
  }));
  const pool = createModelPool(endpoints, poolOptions);
  const chosen = config.compactionModel;
  if (!chosen) return { pool, compaction: pool };
  const first = Math.min(...endpoints.map((e) => e.priority ?? 0));
  const compactionEndpoint: PoolEndpoint = {
    client: clientOf(
      chosen,
      `${chosen.provider}:${chosen.model}@compaction`,
      'models.compactionModel',
      secrets,
      clock,
      shared,
    ),
    priority: first - 1,
    tags: chosen.tags,
  };
  // Compaction asks for no tags, so the fallbacks' tags do not matter there.
  return { pool, compaction: createModelPool([compactionEndpoint, ...endpoints], poolOptions) };
}
