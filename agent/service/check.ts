import Anthropic from '@anthropic-ai/sdk';
import { systemClock, type Brain } from '../../src/index.js';
import type { AssistantConfig } from '../config.js';
import { silentLog } from '../log.js';
import { buildComponents } from './components.js';
import { createServiceHost } from './host.js';
import { createInboxWatcher } from './inbox.js';
import { DEFAULT_OLLAMA_HOST } from '../models/create.js';
import { DEFAULT_OPENAI_BASE_URL } from '../models/openai.js';
import type { EndpointConfig } from '../models/config.js';
import { checkSkills } from '../skills/report.js';
import { sandboxStatus } from '../tools/sandbox.js';
import type { CheckItem, ServiceComponent, ServiceHost } from '../contracts.js';

/**
 * `brain agent --check`: what can be looked at without starting anything — each model endpoint
 * answers (Anthropic: the model is known to the API with this key, which costs no tokens;
 * Ollama: the server lists the model), then each component's own check.
 */

export async function checkEndpoints(
  config: AssistantConfig,
  options: { timeoutMs?: number } = {},
): Promise<CheckItem[]> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const endpoints: Array<[string, EndpointConfig]> = config.models.endpoints.map((e, i) => [
    `models.endpoints.${i}`,
    e,
  ]);
  if (config.models.compactionModel)
    endpoints.push(['models.compactionModel', config.models.compactionModel]);
  return Promise.all(
    endpoints.map(async ([path, endpoint]) => {
      const name = `model ${path} (${endpoint.provider} ${endpoint.model})`;
      try {
        const detail =
          endpoint.provider === 'anthropic'
            ? await checkAnthropic(endpoint, config, timeoutMs)
            : endpoint.provider === 'openai'
              ? await checkOpenAI(endpoint, config, timeoutMs)
              : await checkOllama(endpoint, config, timeoutMs);
        return { name, ok: true, detail };
      } catch (err) {
        return { name, ok: false, detail: (err as Error).message };
      }
    }),
  );
}

async function checkAnthropic(
  endpoint: EndpointConfig,
  config: AssistantConfig,
  timeoutMs: number,
): Promise<string> {
  const apiKey = config.secrets.anthropicApiKey;
  if (!apiKey) throw new Error('ANTHROPIC_API_KEY is not set in the environment');
  const baseURL = endpoint.baseUrl ?? config.secrets.anthropicBaseUrl;
  const client = new Anthropic({
    apiKey,
    ...(baseURL ? { baseURL } : {}),
    maxRetries: 0,
    timeout: timeoutMs,
  });
  // A failure names where it asked: the SDK's own message ("Connection error.") does not.
  const info = await client.models.retrieve(endpoint.model).catch((err: unknown) => {
    const status = err instanceof Anthropic.APIError ? err.status : undefined;
    if (status === 401)
      throw new Error(`ANTHROPIC_API_KEY was refused by ${client.baseURL}: 401`, { cause: err });
    const cause =
      err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
    throw new Error(`${client.baseURL}: ${(err as Error).message}${cause}`, { cause: err });
  });
  return `answers (${info.id})`;
}

async function checkOllama(
  endpoint: EndpointConfig,
  config: AssistantConfig,
  timeoutMs: number,
): Promise<string> {
  const host = endpoint.baseUrl ?? config.secrets.ollamaHost ?? DEFAULT_OLLAMA_HOST;
  const res = await fetch(new URL('/api/tags', host), {
    signal: AbortSignal.timeout(timeoutMs),
  }).catch((err: unknown) => {
    // fetch fails with a TypeError whose cause is the socket's error (ECONNREFUSED, …).
    const cause =
      err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
    const why = config.models.chosenBecause;
    throw new Error(
      why
        ? `${why}, so the default is Ollama at ${host}, which did not answer${cause}`
        : `ollama ${endpoint.model} at ${host} did not answer${cause}`,
      { cause: err },
    );
  });
  if (!res.ok) throw new Error(`${host} answered ${res.status}`);
  const body = (await res.json()) as { models?: Array<{ name?: string; model?: string }> };
  const names = (body.models ?? []).flatMap((m) => [m.name, m.model]).filter(Boolean) as string[];
  const wanted = endpoint.model.includes(':')
    ? [endpoint.model]
    : [endpoint.model, `${endpoint.model}:latest`];
  if (!names.some((n) => wanted.includes(n)))
    throw new Error(
      `${host} answers but has no model ${endpoint.model} (ollama pull ${endpoint.model})`,
    );
  return `answers at ${host}`;
}

/** An OpenAI-compatible server: its model list (GET /models) names the endpoint's model. */
async function checkOpenAI(
  endpoint: EndpointConfig,
  config: AssistantConfig,
  timeoutMs: number,
): Promise<string> {
  const base = (endpoint.baseUrl ?? DEFAULT_OPENAI_BASE_URL).replace(/\/+$/, '');
  const variable = endpoint.apiKeyEnv;
  const apiKey = variable === undefined ? undefined : config.secrets.apiKeys[variable];
  if (variable !== undefined && !apiKey)
    throw new Error(`${variable} is not set in the environment`);
  const res = await fetch(`${base}/models`, {
    headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
    signal: AbortSignal.timeout(timeoutMs),
  }).catch((err: unknown) => {
    const cause =
      err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
    throw new Error(`openai ${endpoint.model} at ${base} did not answer${cause}`, { cause: err });
  });
  if (res.status === 401 || res.status === 403)
    throw new Error(`${variable ?? 'the request'} was refused by ${base}: ${res.status}`);
  if (!res.ok) throw new Error(`${base}/models answered ${res.status}`);
  const body = (await res.json().catch(() => ({}))) as { data?: Array<{ id?: unknown }> };
  const ids = (body.data ?? []).map((m) => m.id).filter((m): m is string => typeof m === 'string');
  if (!ids.includes(endpoint.model)) {
    const some = ids.slice(0, 5).join(', ') + (ids.length > 5 ? ', …' : '');
    throw new Error(
      `${base} answers but lists no model ${endpoint.model} (it lists ${some || 'none'})`,
    );
  }
  return `answers at ${base}`;
}

/**
 * Whether run_command's commands run in the sandbox. Not in use is a failure only when the
 * config requires it (then every command is refused).
 */
export function checkSandbox(config: AssistantConfig): CheckItem {
  const mode = config.tools.runCommand.sandbox;
  if (mode === 'off')
    return {
      name: 'sandbox',
      ok: true,
      detail: 'off (tools.runCommand.sandbox); commands run unconfined, the allowlist still holds',
    };
  const { inUse, detail } = sandboxStatus(config.commandEnv.PATH ?? '');
  if (inUse || mode === 'auto') return { name: 'sandbox', ok: true, detail };
  return {
    name: 'sandbox',
    ok: false,
    detail: `${detail}; required by the config, so every command is refused`,
  };
}

/** Each component's check; one that throws is a failed item under its name. */
export async function checkComponents(
  components: readonly ServiceComponent[],
  host: ServiceHost,
): Promise<CheckItem[]> {
  const items: CheckItem[] = [];
  for (const component of components) {
    if (!component.check) continue;
    try {
      items.push(...(await component.check(host)));
    } catch (err) {
      items.push({ name: component.name, ok: false, detail: (err as Error).message });
    }
  }
  return items;
}

/**
 * Everything `brain agent --check` looks at once the config loaded and the brain opened: the
 * endpoints, the sandbox, then the service's components built as `brain agent` builds them (none
 * started) and asked for their own checks.
 */
export async function checkService(options: {
  brain: Brain;
  config: AssistantConfig;
}): Promise<CheckItem[]> {
  const { brain, config } = options;
  const items = [
    ...(await checkEndpoints(config)),
    checkSandbox(config),
    ...(await checkSkills(config)),
  ];
  let host;
  try {
    host = createServiceHost({ brain, config, clock: systemClock, log: silentLog });
  } catch (err) {
    items.push({ name: 'assistant', ok: false, detail: (err as Error).message });
    return items;
  }
  const components = [
    ...(await buildComponents(config, { brain, clock: systemClock, log: silentLog })),
    createInboxWatcher(),
  ];
  host.setComponents(components);
  items.push(...(await checkComponents(components, host)));
  await host.close();
  return items;
}
