import { z } from 'zod';
import { formatZodError } from '../../src/index.js';

/**
 * `mcpServers` in the assistant's config, in the shape Claude Code and Claude Desktop use so a
 * user can paste theirs: `{"name": {"command", "args"?, "env"?}}` starts a process spoken to over
 * stdio, `{"name": {"type": "http", "url", "headers"?}}` a streamable HTTP endpoint. Each entry
 * may also say which tools to take, how long a call may run and whether to start on first use.
 *
 * Entries are checked one by one: a bad one is refused (its error names its key path) and the
 * others still run, so one typo does not cost the assistant every server.
 */

/** A server's name becomes part of tool names (`mcp__<server>__<tool>`): keep it plain. */
export const SERVER_NAME = /^[A-Za-z0-9_-]{1,64}$/;

const toolList = z.array(z.string().min(1, 'must not be empty')).optional();

const common = {
  /** Only these tools of the server (their names as the server gives them). */
  enabledTools: toolList,
  /** Every tool but these. */
  disabledTools: toolList,
  /** How long one call may take before it is an error. */
  timeoutSeconds: z.number().positive().max(3600).default(60),
  /** Start the server on first use (through find_tools) rather than with the service. */
  lazy: z.boolean().default(false),
};

const stdioEntry = z.strictObject({
  type: z.literal('stdio').optional(),
  command: z.string().min(1, 'must not be empty'),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
  ...common,
});

const httpEntry = z.strictObject({
  type: z.literal('http'),
  url: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }),
  headers: z.record(z.string(), z.string()).default({}),
  ...common,
});

/** What the file holds: the map is taken as it is, each entry is checked on its own. */
export const mcpFileShape = {
  mcpServers: z.record(z.string(), z.unknown()).optional(),
  /** Above this many (estimated) tokens of MCP tool schemas, the model gets find_tools instead. */
  mcpToolBudgetTokens: z.number().int().min(0).max(1_000_000).default(8000),
};

interface ServerCommon {
  name: string;
  enabledTools: string[] | undefined;
  disabledTools: string[] | undefined;
  timeoutMs: number;
  lazy: boolean;
}
export interface StdioServerConfig extends ServerCommon {
  type: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
}
export interface HttpServerConfig extends ServerCommon {
  type: 'http';
  url: string;
  headers: Record<string, string>;
}
export type McpServerConfig = StdioServerConfig | HttpServerConfig;

export interface McpConfig {
  servers: McpServerConfig[];
  /** Entries refused, each by its key path: they do not run, the others do. */
  errors: Array<{ server: string; message: string }>;
  toolBudgetTokens: number;
}

type Env = Record<string, string | undefined>;

/**
 * `${VAR}` (or `${VAR:-default}`) in a value, from the environment; a variable that is unset and
 * has no default is an error naming it.
 */
export function substituteEnv(value: string, env: Env): { value: string } | { missing: string } {
  let missing: string | undefined;
  const out = value.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
    (_m, name: string, fallback?: string) => {
      const found = env[name];
      if (found !== undefined && found !== '') return found;
      if (fallback !== undefined) return fallback;
      missing ??= name;
      return '';
    },
  );
  return missing === undefined ? { value: out } : { missing };
}

function substituteAll(
  values: Record<string, string>,
  env: Env,
  path: string,
): { values: Record<string, string> } | { error: string } {
  const out: Record<string, string> = {};
  for (const [key, raw] of Object.entries(values)) {
    const result = substituteEnv(raw, env);
    if ('missing' in result)
      return { error: `${path}.${key}: \${${result.missing}} is not set in the environment` };
    out[key] = result.value;
  }
  return { values: out };
}

function describe(error: z.ZodError, prefix: string): string {
  return error.issues
    .map((issue) => {
      if (issue.code === 'unrecognized_keys')
        return issue.keys.map((k) => `${prefix}.${k}: unknown key`).join('; ');
      const msg = formatZodError(new z.ZodError([{ ...issue, path: [] }])).replace(/^input: /, '');
      return `${[prefix, ...issue.path.map(String)].join('.')}: ${msg}`;
    })
    .join('; ');
}

/** One entry: the server it describes, or why it is refused (with its key path). */
export function resolveServer(
  name: string,
  raw: unknown,
  env: Env,
): McpServerConfig | { error: string } {
  const prefix = `mcpServers.${name}`;
  if (!SERVER_NAME.test(name))
    return { error: `${prefix}: a server name is 1-64 letters, digits, _ or -` };
  const type = (raw as { type?: unknown } | null)?.type;
  if (type === 'sse')
    return { error: `${prefix}.type: sse is not supported; use "http" (streamable HTTP)` };
  const schema = type === 'http' ? httpEntry : stdioEntry;
  const parsed = schema.safeParse(raw);
  if (!parsed.success) return { error: describe(parsed.error, prefix) };
  const entry = parsed.data;
  const base: ServerCommon = {
    name,
    enabledTools: entry.enabledTools,
    disabledTools: entry.disabledTools,
    timeoutMs: Math.round(entry.timeoutSeconds * 1000),
    lazy: entry.lazy,
  };
  if ('url' in entry) {
    const headers = substituteAll(entry.headers, env, `${prefix}.headers`);
    if ('error' in headers) return headers;
    return { ...base, type: 'http', url: entry.url, headers: headers.values };
  }
  const vars = substituteAll(entry.env, env, `${prefix}.env`);
  if ('error' in vars) return vars;
  return { ...base, type: 'stdio', command: entry.command, args: entry.args, env: vars.values };
}

/** Every entry of `mcpServers`, resolved one by one (the environment fills `${VAR}`s). */
export function resolveMcpConfig(
  file: { mcpServers?: Record<string, unknown> | undefined; mcpToolBudgetTokens: number },
  env: Env,
): McpConfig {
  const servers: McpServerConfig[] = [];
  const errors: McpConfig['errors'] = [];
  for (const [name, raw] of Object.entries(file.mcpServers ?? {})) {
    const resolved = resolveServer(name, raw, env);
    if ('error' in resolved) errors.push({ server: name, message: resolved.error });
    else servers.push(resolved);
  }
  return { servers, errors, toolBudgetTokens: file.mcpToolBudgetTokens };
}

/** Whether two resolved entries would run the same server (a change means a restart). */
export function sameServer(a: McpServerConfig, b: McpServerConfig): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
