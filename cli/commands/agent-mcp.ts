import type { Command } from 'commander';
import { bold, dim, printJson, println } from '../output.js';
import type { GlobalOptions } from '../run.js';
import { loadAssistantConfigFile } from '../assistant-config.js';

interface AgentMcpOptions {
  config?: string;
}

/**
 * `brain agent mcp`: each MCP server of the assistant's config, connected or not, with its tool
 * count and its last error; refused entries with their key path. It connects to each server once
 * (lazy ones are only listed) and lets go. Exit 1 when a server is down or an entry is refused.
 *
 * `brain agent` itself belongs to the service (cli/commands/agent.ts): this adds `mcp` under it,
 * or makes a bare `agent` to hold it when the service's command is not registered.
 */
export function registerAgentMcp(program: Command, globals: () => GlobalOptions): void {
  const agent =
    program.commands.find((c) => c.name() === 'agent') ??
    program.command('agent').description("the assistant's service");
  agent
    .command('mcp')
    .description("the assistant's MCP servers: connected or not, tools, last error")
    .option(
      '--config <file>',
      'the assistant config (else BRAIN_ASSISTANT_CONFIG, else ~/.config/brain/assistant.json)',
    )
    .action(async (opts: AgentMcpOptions, command: Command) => {
      // `brain agent --config F mcp` and `brain agent mcp --config F`: the parent's option takes
      // the flag wherever it is written, so read it there too.
      const file = opts.config ?? (command.parent?.opts() as AgentMcpOptions | undefined)?.config;
      const { checkMcpServers, streamLog } = await import('../../agent/index.js');
      const config = await loadAssistantConfigFile(file);
      const log = streamLog((line) => void process.stderr.write(`brain: ${line}`), 'error');
      const { servers, refused, budget } = await checkMcpServers({ config, log });
      const down = servers.filter((s) => !s.connected && !(s.lazy && s.state === 'idle'));
      if (down.length > 0 || refused.length > 0) process.exitCode = 1;
      if (globals().json)
        return printJson({
          file: config.file,
          servers: servers.map((s) => ({
            name: s.name,
            type: s.type,
            connected: s.connected,
            state: s.state,
            lazy: s.lazy,
            tools: s.tools,
            last_error: s.lastError ?? null,
          })),
          refused: refused.map((r) => ({ server: r.server, error: r.message })),
          tool_tokens: budget.tokens,
          budget_tokens: budget.budget,
          find_tools: budget.findTools,
        });
      if (servers.length === 0 && refused.length === 0)
        return println(`no mcpServers in ${config.file}`);
      const rows = servers.map((s) => [
        s.name,
        s.connected ? 'connected' : s.lazy && s.state === 'idle' ? 'lazy' : 'not connected',
        s.type,
        `${s.tools} tool${s.tools === 1 ? '' : 's'}`,
        s.connected ? '' : (s.lastError ?? (s.lazy ? 'starts on first use' : '')),
      ]);
      for (const r of refused) rows.push([r.server, 'refused', '', '', r.message]);
      const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((row) => row[i]!.length)));
      for (const row of rows)
        println(
          `${bold(row[0]!.padEnd(widths[0]!))}  ${row
            .slice(1, 4)
            .map((c, i) => c.padEnd(widths[i + 1]!))
            .join('  ')}  ${row[4]}`.trimEnd(),
        );
      println(
        dim(
          `tool schemas: ~${budget.tokens.toLocaleString('en-US')} of ${budget.budget.toLocaleString('en-US')} tokens` +
            (budget.findTools ? ' (the model gets find_tools)' : ''),
        ),
      );
    });
}
