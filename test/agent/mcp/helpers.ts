import { join } from 'node:path';
import type { McpServerConfig } from '../../../agent/mcp/config.js';
import type { McpTimers } from '../../../agent/mcp/connection.js';
import type { Tool, ToolContext } from '../../../agent/tools/types.js';
import { ROOT } from '../../helpers.js';

export const FIXTURE = join(ROOT, 'test', 'agent', 'fakes', 'mcp-fixture-server.mjs');
export const MEMORY_SERVER = join(
  ROOT,
  'node_modules',
  '@modelcontextprotocol',
  'server-memory',
  'dist',
  'index.js',
);

/** A stdio server entry as resolveMcpConfig makes it. */
export function stdio(
  name: string,
  args: string[],
  extra: Partial<McpServerConfig> = {},
): McpServerConfig {
  return {
    name,
    type: 'stdio',
    command: process.execPath,
    args,
    env: {},
    enabledTools: undefined,
    disabledTools: undefined,
    timeoutMs: 20_000,
    lazy: false,
    ...extra,
  } as McpServerConfig;
}

/** Timers the test fires by hand: each pending one with the delay it asked for. */
export function manualTimers() {
  const pending = new Map<number, { fn: () => void; ms: number }>();
  let next = 1;
  const timers: McpTimers = {
    setTimeout(fn, ms) {
      const id = next++;
      pending.set(id, { fn, ms });
      return id;
    },
    clearTimeout(handle) {
      pending.delete(handle as number);
    },
  };
  return {
    timers,
    delays: () => [...pending.values()].map((p) => p.ms),
    /** Fire every pending timer; returns the delays fired. */
    fire() {
      const due = [...pending.entries()];
      pending.clear();
      for (const [, p] of due) p.fn();
      return due.map(([, p]) => p.ms);
    },
  };
}

/** Enough of a ToolContext for MCP tools, which use only the signal and the session. */
export function toolContext(
  signal: AbortSignal = new AbortController().signal,
  session = 'chat/test',
) {
  return { signal, session } as unknown as ToolContext;
}

export function byName(tools: readonly Tool[], name: string): Tool {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name} in ${tools.map((t) => t.name).join(', ')}`);
  return tool;
}
