import { systemClock, type Clock } from '../../src/index.js';
import type { AssistantConfig } from '../config.js';
import { silentLog, type Log } from '../log.js';
import type { CheckItem, ServiceComponent, ServiceHost } from '../contracts.js';
import type { Tool } from '../tools/types.js';
import { sameServer, type McpConfig } from './config.js';
import { globalTimers, ServerConnection, type McpTimers, type ServerStatus } from './connection.js';
import { createFindTools } from './find-tools.js';
import { schemaTokens, toModelTool } from './tools.js';

/**
 * The MCP client: a service component named `mcp` that runs the configured servers and gives
 * their tools to the model as `mcp__<server>__<tool>`. Usable without the service:
 * `createAssistant({ moreTools: (session) => manager.tools(session) })` after `manager.start()`.
 */
export interface McpManager extends ServiceComponent {
  readonly name: 'mcp';
  start(host?: ServiceHost): Promise<void>;
  tools(session: string): readonly Tool[];
  /** Connect what is not running yet (lazy servers stay idle), then one line per server. */
  check(host?: ServiceHost): Promise<CheckItem[]>;
  reconfigure(config: AssistantConfig): Promise<void>;
  /** Each configured server, as it is now. */
  status(): ServerStatus[];
  /** Entries of `mcpServers` refused (they do not run), each by its key path. */
  refused(): McpConfig['errors'];
  /** Apply a new `mcpServers`: added servers start, removed ones stop, changed ones restart. */
  apply(config: McpConfig): Promise<void>;
  /** What the MCP tools would cost the model's context, and whether find_tools stands in. */
  budget(): { tokens: number; budget: number; findTools: boolean };
}

export interface McpManagerOptions {
  config: McpConfig;
  log?: Log;
  clock?: Clock;
  /** The backoff's timer (default the global one). */
  timers?: McpTimers;
}

export function createMcpManager(options: McpManagerOptions): McpManager {
  const log = options.log ?? silentLog;
  const clock = options.clock ?? systemClock;
  const timers = options.timers ?? globalTimers;
  let config = options.config;
  let running = false;
  const connections = new Map<string, ServerConnection>();
  /** Model tools per server, rebuilt when its list changes. */
  const built = new Map<string, Tool[]>();
  /** Per session: the tools find_tools loaded. */
  const loaded = new Map<string, Set<string>>();

  const rebuild = (connection: ServerConnection) => {
    if (connections.get(connection.name) !== connection) return;
    built.set(
      connection.name,
      connection.tools().map((t) => toModelTool(connection, t)),
    );
  };
  const connect = (server: McpConfig['servers'][number]) => {
    const connection: ServerConnection = new ServerConnection(server, {
      log,
      clock,
      timers,
      onToolsChanged: () => rebuild(connection),
      clientInfo: { name: 'brain-assistant', version: '1' },
    });
    connections.set(server.name, connection);
    built.set(server.name, []);
    return connection;
  };
  const drop = async (name: string) => {
    const connection = connections.get(name);
    connections.delete(name);
    built.delete(name);
    await connection?.stop();
  };
  for (const server of config.servers) connect(server);

  const reportRefused = () => {
    for (const e of config.errors)
      log('warn', 'mcp.config_refused', { server: e.server, error: e.message });
  };

  /** The tools of servers that start with the service, and those of lazy ones. */
  const partition = () => {
    const eager: Tool[] = [];
    const lazy: Tool[] = [];
    let anyLazy = false;
    for (const [name, connection] of connections) {
      const tools = built.get(name) ?? [];
      if (connection.config.lazy) {
        anyLazy = true;
        lazy.push(...tools);
      } else eager.push(...tools);
    }
    const tokens = eager.reduce((sum, t) => sum + schemaTokens(t), 0);
    const over = tokens > config.toolBudgetTokens;
    return {
      direct: over ? [] : eager,
      hidden: over ? [...eager, ...lazy] : lazy,
      findTools: over || anyLazy,
      tokens,
    };
  };

  const findTools = createFindTools({
    async candidates() {
      // First use of a lazy server: start it now, so its tools can be found.
      await Promise.all(
        [...connections.values()]
          .filter((c) => c.config.lazy && c.status().state === 'idle')
          .map((c) => c.start()),
      );
      return partition().hidden;
    },
    load(session, names) {
      const set = loaded.get(session) ?? new Set<string>();
      for (const n of names) set.add(n);
      loaded.set(session, set);
    },
  }) as Tool;

  const startAll = async () => {
    await Promise.all(
      [...connections.values()].filter((c) => !c.config.lazy).map((c) => c.start()),
    );
  };

  return {
    name: 'mcp',
    async start() {
      running = true;
      reportRefused();
      await startAll();
    },
    async stop() {
      running = false;
      await Promise.all([...connections.keys()].map(drop));
      loaded.clear();
    },
    tools(session) {
      const { direct, hidden, findTools: behind } = partition();
      if (!behind) return direct;
      const picked = loaded.get(session);
      const extra = picked ? hidden.filter((t) => picked.has(t.name)) : [];
      return [...direct, findTools, ...extra];
    },
    status: () => [...connections.values()].map((c) => c.status()),
    refused: () => config.errors,
    budget() {
      const { tokens, findTools: behind } = partition();
      return { tokens, budget: config.toolBudgetTokens, findTools: behind };
    },
    async apply(next) {
      const previous = config;
      config = next;
      const wanted = new Map(next.servers.map((s) => [s.name, s]));
      const stopping: Promise<void>[] = [];
      const starting: ServerConnection[] = [];
      for (const name of [...connections.keys()]) {
        const server = wanted.get(name);
        if (!server) {
          log('info', 'mcp.removed', { server: name });
          stopping.push(drop(name));
        } else if (!sameServer(connections.get(name)!.config, server)) {
          log('info', 'mcp.changed', { server: name });
          stopping.push(drop(name));
          starting.push(connect(server));
        }
      }
      for (const [name, server] of wanted)
        if (!connections.has(name)) {
          log('info', 'mcp.added', { server: name });
          starting.push(connect(server));
        }
      await Promise.all(stopping);
      const newlyRefused = next.errors.filter(
        (e) => !previous.errors.some((p) => p.message === e.message),
      );
      for (const e of newlyRefused)
        log('warn', 'mcp.config_refused', { server: e.server, error: e.message });
      if (running) await Promise.all(starting.filter((c) => !c.config.lazy).map((c) => c.start()));
    },
    async reconfigure(next: AssistantConfig) {
      await this.apply(next.mcp);
    },
    async check(): Promise<CheckItem[]> {
      // Outside a running service (`brain agent --check`), connect once to say how each server is.
      await startAll();
      const items: CheckItem[] = this.status().map((s) => ({
        name: `mcp ${s.name}`,
        ok: s.connected || (s.lazy && s.state === 'idle'),
        detail: s.connected
          ? `connected (${s.type}), ${s.tools} tool${s.tools === 1 ? '' : 's'}`
          : s.lazy && s.state === 'idle'
            ? 'lazy: starts on first use'
            : `not connected: ${s.lastError ?? s.state}`,
      }));
      for (const e of config.errors)
        items.push({ name: `mcp ${e.server}`, ok: false, detail: `refused: ${e.message}` });
      return items;
    },
  };
}
