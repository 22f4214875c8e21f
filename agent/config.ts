import { commandEnv } from './tools/command-process.js';
import { toolsConfigSchema, type ToolsConfig } from './tools/web-config.js';
import { discordConfigSchema, type DiscordConfig } from './channels/discord/config.js';
import { readFileSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import {
  BrainError,
  EXTRACT_THREADS,
  agentName,
  formatZodError,
  zodField,
  type ExtractThreads,
  resolveWebhooks,
  type RetentionPolicy,
  type Webhook,
} from '../src/index.js';
import { parseJsonc } from './jsonc.js';
import {
  hooksInSchema,
  resolveHooksIn,
  retentionSchema,
  webhooksSchema,
  type HookIn,
} from './server-config.js';
import { telegramConfigSchema, type TelegramConfig } from './channels/telegram/config.js';
import {
  endpointConfig,
  modelsConfig,
  type EndpointConfig,
  type ModelsConfig,
} from './models/config.js';
import { permissionsConfig, type PermissionsConfig } from './permissions/policy.js';
import { delegationConfig, type DelegationConfig } from './delegation/config.js';
import { mcpFileShape, resolveMcpConfig, type McpConfig } from './mcp/config.js';
import { skillsConfig, type SkillsConfig } from './skills/config.js';
import {
  resolveSchedulerConfig,
  schedulerFileKeys,
  type SchedulerConfig,
} from './scheduler/config.js';
import {
  laneConfig,
  ownerConfig,
  ownerParts,
  type LaneConfig,
  type OwnerIdentities,
} from './service/config.js';

export type Env = Record<string, string | undefined>;

/** The model used when the config names none: Anthropic's when a key is set, else Ollama's. */
export const DEFAULT_ANTHROPIC_MODEL = 'claude-sonnet-5-5';
export const DEFAULT_OLLAMA_MODEL = 'llama3.1';

const timeZone = z.string().refine((tz) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    // RangeError: not a zone this runtime knows; the refinement reports it.
    return false;
  }
}, 'must be an IANA time zone such as Europe/Paris');

/**
 * The assistant's config file, as written (camelCase). Every key is optional; later issues add
 * `permissions`, `telegram`, `discord`, `heartbeat`, `cron` and `mcpServers` beside these. Any
 * other key is refused, so a typo is not silently ignored.
 */
export const assistantFileSchema = z.strictObject({
  /** The assistant's agent name in the brain. */
  agent: zodField(agentName(), z).optional(),
  /**
   * The user's agent name in the brain (default: the login name, made a valid agent name), or
   * `{name?, telegram?, discord?}` with the user's identity on each channel (agent/service/config.ts).
   */
  owner: ownerConfig.optional(),
  /** Folder of SOUL.md, AGENTS.md, TOOLS.md; relative to the config file's folder; `~/` is home. */
  workspace: z.string().min(1, 'must not be empty').optional(),
  /** The endpoint pool (agent/models/config.ts). */
  models: modelsConfig.optional(),
  compaction: z
    .strictObject({
      /** Compact when the context is estimated above this many tokens. */
      thresholdTokens: z.number().int().min(1000).default(100_000),
      /** Keep at least the newest turns worth this many tokens as they are. */
      keepRecentTokens: z.number().int().min(0).default(20_000),
    })
    .refine((c) => c.keepRecentTokens < c.thresholdTokens, {
      message: 'keepRecentTokens must be below thresholdTokens',
      path: ['keepRecentTokens'],
    })
    .prefault({}),
  /** Model calls one turn may make before it is cut short. */
  maxRounds: z.number().int().min(1).max(500).default(20),
  /** What a task handed to a sub-turn (delegate_task) may spend (agent/delegation/config.ts). */
  delegation: delegationConfig,
  /** The memories put in the system prompt. */
  memory: z
    .strictObject({
      maxTokens: z.number().int().min(0).max(100_000).default(1500),
      limit: z.number().int().min(1).max(100).default(12),
    })
    .prefault({}),
  /** The time zone the prompt states the time in; default the system's. */
  timeZone: timeZone.optional(),
  /** Which tool calls run, are asked, or are refused (agent/permissions/policy.ts). */
  permissions: permissionsConfig,
  /** Folders the file tools may use besides the workspace; web_fetch and web_search settings. */
  tools: toolsConfigSchema.prefault({}),
  /** The Telegram channel (agent/channels/telegram/config.ts); the token is TELEGRAM_BOT_TOKEN. */
  telegram: telegramConfigSchema.optional(),
  /** The scheduler (agent/scheduler/config.ts): checklist ticks, jobs, reminders, mail. */
  heartbeat: schedulerFileKeys.heartbeat,
  cron: schedulerFileKeys.cron,
  reminders: schedulerFileKeys.reminders,
  email: schedulerFileKeys.email,
  reflection: schedulerFileKeys.reflection,
  catchUpMinutes: schedulerFileKeys.catchUpMinutes,
  /** Other MCP servers whose tools the assistant uses: `mcpServers`, `mcpToolBudgetTokens`. */
  ...mcpFileShape,
  /** Skills from `<workspace>/skills/` (agent/skills/): the prompt's budget, whose servers start. */
  skills: skillsConfig,
  /** `brain agent`'s lane: how many sessions' turns run at once. */
  lane: laneConfig,
  /** Forward other agents' exchanges with the assistant to the owner's chat. */
  relayToOwner: z.boolean().default(false),
  /** The Discord channel (agent/channels/discord/); absent: not run. */
  discord: discordConfigSchema.optional(),
  /** How messages become knowledge: `model` reads them with an endpoint of `models.endpoints`. */
  extract: z
    .strictObject({
      /** An endpoint of `models.endpoints`: its index, or its model (`provider:model`, or the id). */
      model: z.union([z.string().min(1, 'must not be empty'), z.number().int().min(0)]).optional(),
      /** Which threads are read (beats BRAIN_EXTRACT_THREADS). */
      threads: z.enum(EXTRACT_THREADS).optional(),
    })
    .optional(),
  /** Archiving idle threads (never deleting), read by `brain serve`, `brain agent`, `brain doctor`. */
  retention: retentionSchema.optional(),
  /** Signed POSTs of events to URLs, read by `brain serve` and `brain agent` (docs/webhooks.md). */
  webhooks: webhooksSchema.optional(),
  /** Signed POSTs that start a turn, their payload untrusted (agent/service/hooks-in.ts). */
  hooks: hooksInSchema.optional(),
});

/** The endpoint `extract.model` names, as the pool knows it. */
export interface ExtractModelChoice {
  /** Its index in `models.endpoints`. */
  index: number;
  /** Its id in the pool and in usage rows: `provider:model@index`. */
  id: string;
  endpoint: EndpointConfig;
}

/** What the assistant runs with: every default applied, the secrets from the environment. */
export interface AssistantConfig {
  /** The config file looked at, and whether it was there (absent: defaults). */
  file: string;
  fileFound: boolean;
  agent: string;
  owner: string;
  workspace: string;
  models: ModelsConfig;
  compaction: { thresholdTokens: number; keepRecentTokens: number };
  maxRounds: number;
  delegation: DelegationConfig;
  memory: { maxTokens: number; limit: number };
  timeZone: string | undefined;
  permissions: PermissionsConfig;
  tools: ToolsConfig;
  /** Absent when the file has no `telegram` key: the channel does not run. */
  telegram: TelegramConfig | undefined;
  /** Heartbeat, cron jobs, reminders, email watchers (agent/scheduler/). */
  scheduler: SchedulerConfig;
  /** The MCP servers (agent/mcp/config.ts): `${VAR}`s filled in, refused entries listed. */
  mcp: McpConfig;
  skills: SkillsConfig;
  /** Who the owner is on each channel (`owner: {telegram, discord}`); empty when not said. */
  ownerIdentities: OwnerIdentities;
  lane: LaneConfig;
  relayToOwner: boolean;
  /** The Discord channel, with its token from `DISCORD_BOT_TOKEN`; undefined when not configured. */
  discord: DiscordConfig | undefined;
  /** The part of the environment a command of run_command starts from (agent/tools/command-process.ts). */
  commandEnv: Record<string, string>;
  /**
   * Extraction: `model` set, messages are read by that endpoint (agent/extract/), else by the
   * offline extractor; `threads` unset, BRAIN_EXTRACT_THREADS decides. Undefined without the key.
   */
  extract:
    { model: ExtractModelChoice | undefined; threads: ExtractThreads | undefined } | undefined;
  /** The retention policy; undefined: threads are never archived by age. */
  retention: RetentionPolicy | undefined;
  /** Hooks out, each with its secret from the file or the environment; empty without the key. */
  webhooks: readonly Webhook[];
  /** Incoming hooks, each with its secret from the file or the environment; empty without the key. */
  hooks: readonly HookIn[];
  /** From the environment only; never written in the file. */
  secrets: {
    anthropicApiKey: string | undefined;
    /** `ANTHROPIC_BASE_URL`, the SDK's own variable. */
    anthropicBaseUrl: string | undefined;
    /** `OLLAMA_HOST`. */
    ollamaHost: string | undefined;
    /** `BRAVE_API_KEY`, for web_search with Brave. */
    braveApiKey: string | undefined;
    /** The values of the variables openai endpoints name in `apiKeyEnv`, by name. */
    apiKeys: Record<string, string | undefined>;
    /** `BRAIN_UI_TOKEN`: the owner's login to `brain ui`'s chat page (ui/run.ts). */
    uiToken: string | undefined;
  };
}

export interface LoadAssistantConfigOptions {
  /** `--config`: beats `BRAIN_ASSISTANT_CONFIG`, which beats the XDG path. */
  file?: string;
  env: Env;
}

/** `$XDG_CONFIG_HOME/brain` (`~/.config/brain`). */
export function configHome(env: Env): string {
  return join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config'), 'brain');
}

/** Which file the config comes from, and whether it was named (a named file must exist). */
export function assistantConfigPath(options: LoadAssistantConfigOptions): {
  path: string;
  named: boolean;
} {
  const named = options.file ?? options.env.BRAIN_ASSISTANT_CONFIG;
  if (named) return { path: resolve(named), named: true };
  return { path: join(configHome(options.env), 'assistant.json'), named: false };
}

/**
 * Read, check and complete the assistant's config. The file is JSON with comments; an absent
 * default file means every default, a named one that is missing is an error. Errors are
 * INVALID_INPUT BrainErrors naming the file and each wrong key by its path
 * (`models.endpoints.0.provider: must be one of anthropic, ollama`).
 */
export function loadAssistantConfig(options: LoadAssistantConfigOptions): AssistantConfig {
  const { path, named } = assistantConfigPath(options);
  const source = readConfigFile(path, named);
  let raw: unknown = {};
  if (source !== undefined) {
    try {
      raw = parseJsonc(source);
    } catch (err) {
      throw new BrainError('INVALID_INPUT', `${path}: not valid JSON: ${(err as Error).message}`);
    }
  }
  const parsed = assistantFileSchema.safeParse(raw);
  if (!parsed.success) {
    throw new BrainError('INVALID_INPUT', `${path}: ${describeIssues(parsed.error)}`);
  }
  const file = parsed.data;
  const env = options.env;
  const owner = ownerParts(file.owner);
  const secrets = {
    anthropicApiKey: env.ANTHROPIC_API_KEY || undefined,
    anthropicBaseUrl: env.ANTHROPIC_BASE_URL || undefined,
    ollamaHost: env.OLLAMA_HOST || undefined,
    braveApiKey: env.BRAVE_API_KEY || undefined,
    apiKeys: {} as Record<string, string | undefined>,
    uiToken: env.BRAIN_UI_TOKEN || undefined,
  };
  const models = file.models ?? defaultModels(secrets.anthropicApiKey !== undefined);
  for (const endpoint of [...models.endpoints, models.compactionModel]) {
    const variable = endpoint?.apiKeyEnv;
    if (variable !== undefined) secrets.apiKeys[variable] = env[variable] || undefined;
  }
  let extractModel: ExtractModelChoice | undefined;
  if (file.extract?.model !== undefined) {
    const chosen = chooseEndpoint(models, file.extract.model);
    if (typeof chosen === 'string')
      throw new BrainError('INVALID_INPUT', `${path}: extract.model: ${chosen}`);
    extractModel = chosen;
  }
  return {
    file: path,
    fileFound: source !== undefined,
    agent: file.agent ?? 'assistant',
    owner: owner.name ?? loginAgentName(env),
    workspace: file.workspace
      ? resolveWorkspace(file.workspace, dirname(path), env)
      : join(configHome(env), 'workspace'),
    models,
    compaction: file.compaction,
    maxRounds: file.maxRounds,
    memory: file.memory,
    timeZone: file.timeZone,
    permissions: file.permissions,
    delegation: file.delegation,
    tools: file.tools,
    telegram: file.telegram && { ...file.telegram, token: env.TELEGRAM_BOT_TOKEN || undefined },
    scheduler: resolveSchedulerConfig(file, env),
    mcp: resolveMcpConfig(file, env),
    skills: file.skills,
    ownerIdentities: owner.identities,
    lane: file.lane,
    relayToOwner: file.relayToOwner,
    discord: file.discord && { ...file.discord, token: env.DISCORD_BOT_TOKEN || undefined },
    commandEnv: commandEnv(env),
    extract: file.extract && { model: extractModel, threads: file.extract.threads },
    retention: file.retention,
    webhooks: webhooksOf(path, file, env),
    hooks: hooksInOf(path, file, env),
    secrets,
  };
}

/**
 * The endpoint `extract.model` names: an index (a number, or digits), else the endpoint whose id
 * (`anthropic:claude-haiku-4-5@1`), `provider:model` or model it is. What went wrong otherwise.
 */
export function chooseEndpoint(
  models: ModelsConfig,
  name: string | number,
): ExtractModelChoice | string {
  const ids = models.endpoints.map((e, i) => `${e.provider}:${e.model}@${i}`);
  const known = `models.endpoints has ${ids.join(', ')}`;
  const choice = (index: number): ExtractModelChoice => ({
    index,
    id: ids[index]!,
    endpoint: models.endpoints[index]!,
  });
  const text = String(name).trim();
  if (/^\d+$/.test(text)) {
    const index = Number(text);
    return index < models.endpoints.length ? choice(index) : `no endpoint ${index} (${known})`;
  }
  const matches = models.endpoints
    .map((e, i) => i)
    .filter((i) => {
      const e = models.endpoints[i]!;
      return text === ids[i] || text === `${e.provider}:${e.model}` || text === e.model;
    });
  if (matches.length === 1) return choice(matches[0]!);
  if (matches.length === 0) return `no endpoint named ${JSON.stringify(text)} (${known})`;
  return `${JSON.stringify(text)} names ${matches.length} endpoints (${matches.map((i) => ids[i]).join(', ')}): give its index`;
}

function webhooksOf(path: string, file: z.output<typeof assistantFileSchema>, env: Env) {
  try {
    return resolveWebhooks(file.webhooks, env);
  } catch (err) {
    throw new BrainError('INVALID_INPUT', `${path}: ${(err as Error).message}`);
  }
}

function hooksInOf(path: string, file: z.output<typeof assistantFileSchema>, env: Env) {
  try {
    return resolveHooksIn(file.hooks, env);
  } catch (err) {
    throw new BrainError('INVALID_INPUT', `${path}: ${(err as Error).message}`);
  }
}

function readConfigFile(path: string, named: boolean): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !named) return undefined;
    if (code === 'ENOENT') throw new BrainError('NOT_FOUND', `no assistant config at ${path}`);
    throw new BrainError('INVALID_INPUT', `cannot read ${path}: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

/** One endpoint: Anthropic's Sonnet when a key is set, else a local Ollama model. */
export function defaultModels(hasAnthropicKey: boolean): ModelsConfig {
  const endpoint = hasAnthropicKey
    ? { provider: 'anthropic' as const, model: DEFAULT_ANTHROPIC_MODEL }
    : { provider: 'ollama' as const, model: DEFAULT_OLLAMA_MODEL };
  const models: ModelsConfig = { endpoints: [endpointConfig.parse(endpoint)] };
  if (!hasAnthropicKey) models.chosenBecause = 'no ANTHROPIC_API_KEY set';
  return models;
}

/** The login name as an agent name: other characters become `-`; `owner` if nothing is left. */
export function loginAgentName(env: Env): string {
  let login: string | undefined;
  try {
    login = userInfo().username;
  } catch {
    // No passwd entry for this uid (some containers): fall back on the environment.
    login = env.USER || env.LOGNAME;
  }
  const name = (login ?? '')
    .replace(/[^A-Za-z0-9_.@-]/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 64);
  return zodField(agentName(), z).safeParse(name).success ? name : 'owner';
}

function resolveWorkspace(value: string, base: string, env: Env): string {
  if (value === '~' || value.startsWith('~/')) {
    return join(env.HOME || homedir(), value.slice(1));
  }
  return isAbsolute(value) ? value : resolve(base, value);
}

/** Every problem, each by its key path; an unknown key is named with its own path. */
function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      if (issue.code === 'unrecognized_keys') {
        return issue.keys
          .map((k) => `${[...issue.path.map(String), k].join('.')}: unknown key`)
          .join('; ');
      }
      const message = formatZodError(new z.ZodError([issue]));
      return issue.path.length === 0 ? message.replace(/^input: /, 'the file: ') : message;
    })
    .join('; ');
}
