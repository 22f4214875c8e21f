import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { Clock } from '../../src/index.js';
import type { Log } from '../log.js';
import type { McpServerConfig } from './config.js';

/**
 * One configured MCP server: its client, its tools, and its life. It connects (spawning the
 * command, or opening the HTTP endpoint), lists every page of tools, refreshes them when the
 * server says they changed, and when the server dies takes its tools away and tries again after
 * 1 s, 2 s, 4 s … up to 60 s (the backoff starts over once a connection has lived a minute).
 */

/**
 * The MCP SDK, loaded when the first server connects rather than with `brain agent`: a service
 * with no MCP servers configured never loads it. Node keeps what it imported: a later connection
 * gets the same modules at once.
 */
type Sdk = Awaited<ReturnType<typeof importSdk>>;
async function importSdk() {
  const [client, stdio, http, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  return {
    Client: client.Client,
    StdioClientTransport: stdio.StdioClientTransport,
    StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
    McpError: types.McpError,
    ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
  };
}

/** The timer the backoff waits on; tests hand in one they fire by hand. */
export interface McpTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}
export const globalTimers: McpTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

export const BACKOFF_START_MS = 1000;
export const BACKOFF_MAX_MS = 60_000;
/** A connection that lived this long resets the backoff. */
const STABLE_MS = 60_000;
/** tools/list pages followed at most (a server that keeps handing cursors is cut off). */
const MAX_PAGES = 100;
/** How long connecting and listing may take (timeoutSeconds is for calls). */
const START_TIMEOUT_MS = 30_000;

export type ServerState = 'idle' | 'connecting' | 'connected' | 'waiting' | 'stopped';

export interface ServerStatus {
  name: string;
  type: 'stdio' | 'http';
  state: ServerState;
  connected: boolean;
  lazy: boolean;
  tools: number;
  lastError: string | undefined;
  /** How many times it was started again after dying or failing. */
  restarts: number;
}

export interface ConnectionDeps {
  log: Log;
  clock: Clock;
  timers: McpTimers;
  /** Called whenever the server's tool list changes (listed, refreshed, or gone). */
  onToolsChanged: () => void;
  clientInfo: { name: string; version: string };
}

export class ServerConnection {
  private client: Client | undefined;
  /** The SDK, once the first connection loaded it. */
  private sdk: Sdk | undefined;
  private state: ServerState = 'idle';
  private listed: McpTool[] = [];
  private lastError: string | undefined;
  private restarts = 0;
  private attempt = 0;
  private connectedAt = 0;
  private retryTimer: unknown;
  private starting: Promise<void> | undefined;
  private stderrTail: string[] = [];

  constructor(
    readonly config: McpServerConfig,
    private readonly deps: ConnectionDeps,
  ) {}

  get name(): string {
    return this.config.name;
  }

  /** The server's tools as it lists them, after enabledTools / disabledTools. */
  tools(): readonly McpTool[] {
    return this.state === 'connected' ? this.listed : [];
  }

  status(): ServerStatus {
    return {
      name: this.name,
      type: this.config.type,
      state: this.state,
      connected: this.state === 'connected',
      lazy: this.config.lazy,
      tools: this.tools().length,
      lastError: this.lastError,
      restarts: this.restarts,
    };
  }

  /** Connect and list; resolves once connected or once the failure is noted and a retry set. */
  start(): Promise<void> {
    if (this.state === 'stopped') return Promise.resolve();
    if (this.state === 'connected') return Promise.resolve();
    if (this.retryTimer !== undefined) {
      this.deps.timers.clearTimeout(this.retryTimer);
      this.retryTimer = undefined;
    }
    this.starting ??= this.connect().finally(() => (this.starting = undefined));
    return this.starting;
  }

  /** Call one tool by the server's own name, with the configured timeout and the turn's signal. */
  async call(tool: string, args: unknown, signal: AbortSignal): Promise<CallToolResult> {
    if (this.state === 'idle' && this.config.lazy) await this.start();
    const client = this.client;
    if (this.state !== 'connected' || !client)
      throw new Error(
        `MCP server ${this.name} is not connected${this.lastError ? ` (${this.lastError})` : ''}`,
      );
    try {
      return (await client.callTool(
        { name: tool, arguments: (args ?? {}) as Record<string, unknown> },
        undefined,
        { timeout: this.config.timeoutMs, signal },
      )) as CallToolResult;
    } catch (err) {
      // Over HTTP there is no process to watch: a failure that is not the server's own answer
      // may mean it went away (or forgot our session), so ask whether it is still there.
      if (
        this.config.type === 'http' &&
        !(this.sdk && err instanceof this.sdk.McpError) &&
        !signal.aborted
      )
        void this.probe(client);
      throw err;
    }
  }

  async stop(): Promise<void> {
    this.state = 'stopped';
    if (this.retryTimer !== undefined) this.deps.timers.clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const client = this.client;
    this.client = undefined;
    this.listed = [];
    if (client) await closeQuietly(client);
  }

  private async connect(): Promise<void> {
    this.state = 'connecting';
    let sdk: Sdk;
    try {
      sdk = await importSdk();
    } catch (err) {
      if (this.state === 'connecting') this.failed(this.describe(err));
      return;
    }
    // Stopped while the SDK loaded.
    if (this.state !== 'connecting') return;
    this.sdk = sdk;
    const { Client, ToolListChangedNotificationSchema } = sdk;
    const client = new Client(this.deps.clientInfo, { capabilities: {} });
    this.client = client;
    client.onclose = () => this.died(client, 'connection closed');
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      void this.refresh(client);
    });
    try {
      await client.connect(this.transport(sdk), { timeout: START_TIMEOUT_MS });
      const tools = await this.listAll(client);
      if (this.client !== client || this.state !== 'connecting') {
        await closeQuietly(client);
        return;
      }
      this.listed = tools;
      this.state = 'connected';
      this.connectedAt = this.deps.clock().getTime();
      this.lastError = undefined;
      this.deps.log('info', 'mcp.connected', { server: this.name, tools: tools.length });
      this.deps.onToolsChanged();
    } catch (err) {
      if (this.client !== client) return;
      this.client = undefined;
      client.onclose = undefined;
      await closeQuietly(client);
      this.failed(this.describe(err));
    }
  }

  private transport({ StdioClientTransport, StreamableHTTPClientTransport }: Sdk): Transport {
    const c = this.config;
    if (c.type === 'http')
      return new StreamableHTTPClientTransport(new URL(c.url), {
        requestInit: { headers: c.headers },
      });
    this.stderrTail = [];
    const transport = new StdioClientTransport({
      command: c.command,
      args: c.args,
      env: c.env,
      stderr: 'pipe',
    });
    // Keep the last lines the server wrote on stderr: they explain most failures to start.
    transport.stderr?.on('data', (chunk: Buffer) => {
      const lines = chunk.toString('utf8').split('\n').filter(Boolean);
      this.stderrTail = [...this.stderrTail, ...lines].slice(-3);
    });
    return transport;
  }

  private async listAll(client: Client): Promise<McpTool[]> {
    const all: McpTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await client.listTools(cursor === undefined ? undefined : { cursor }, {
        timeout: START_TIMEOUT_MS,
      });
      all.push(...result.tools);
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    const { enabledTools, disabledTools } = this.config;
    return all.filter(
      (t) => (!enabledTools || enabledTools.includes(t.name)) && !disabledTools?.includes(t.name),
    );
  }

  private async refresh(client: Client): Promise<void> {
    if (this.client !== client || this.state !== 'connected') return;
    try {
      const tools = await this.listAll(client);
      if (this.client !== client) return;
      this.listed = tools;
      this.deps.log('info', 'mcp.tools_changed', { server: this.name, tools: tools.length });
      this.deps.onToolsChanged();
    } catch (err) {
      this.deps.log('warn', 'mcp.refresh_failed', {
        server: this.name,
        error: this.describe(err),
      });
    }
  }

  private async probe(client: Client): Promise<void> {
    try {
      await client.ping({ timeout: Math.min(this.config.timeoutMs, 10_000) });
    } catch (err) {
      if (this.client !== client) return;
      this.client = undefined;
      client.onclose = undefined;
      await closeQuietly(client);
      this.lost(this.describe(err));
    }
  }

  private died(client: Client, reason: string): void {
    if (this.client !== client) return;
    if (this.state === 'connecting') return; // connect() is failing and will say why
    this.client = undefined;
    const tail = this.stderrTail.at(-1);
    this.lost(tail ? `${reason}: ${tail}` : reason);
  }

  /** A connected server went away: its tools go, a restart is set. */
  private lost(reason: string): void {
    if (this.state === 'stopped') return;
    if (this.deps.clock().getTime() - this.connectedAt >= STABLE_MS) this.attempt = 0;
    this.listed = [];
    this.deps.onToolsChanged();
    this.failed(reason);
  }

  private failed(reason: string): void {
    if (this.state === 'stopped') return;
    this.lastError = reason;
    this.state = 'waiting';
    const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_START_MS * 2 ** this.attempt);
    this.attempt++;
    this.deps.log('warn', 'mcp.down', { server: this.name, error: reason, retryMs: delay });
    this.retryTimer = this.deps.timers.setTimeout(() => {
      this.retryTimer = undefined;
      if (this.state !== 'waiting') return;
      this.restarts++;
      void this.start();
    }, delay);
  }

  private describe(err: unknown): string {
    const message = err instanceof Error ? err.message : String(err);
    const tail = this.stderrTail.at(-1);
    const text = tail && !message.includes(tail) ? `${message} (stderr: ${tail})` : message;
    return text.length > 300 ? `${text.slice(0, 299)}…` : text;
  }
}

async function closeQuietly(client: Client): Promise<void> {
  try {
    await client.close();
  } catch {
    // Closing a transport that already failed can throw again; it is gone either way.
  }
}
