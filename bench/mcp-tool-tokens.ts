/**
 * What the MCP tools' schemas cost the model's context, given directly or behind find_tools, on a
 * real list of servers: @modelcontextprotocol/server-memory, brain's own `brain mcp` (12 tools),
 * and @modelcontextprotocol/server-filesystem when its entry point is given (it is not a
 * dependency: `npm install --prefix /tmp/mcp-fs @modelcontextprotocol/server-filesystem`).
 * Tokens are estimated as the assistant estimates them (characters of the JSON / 4).
 *
 * Usage: npm run build && npx tsx bench/mcp-tool-tokens.ts [path/to/server-filesystem/dist/index.js]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { resolveMcpConfig } from '../agent/mcp/config.js';
import { createMcpManager } from '../agent/mcp/manager.js';
import { schemaTokens } from '../agent/mcp/tools.js';
import { toolSchemas } from '../agent/tools/registry.js';

const ROOT = resolve(import.meta.dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'brain-bench-mcp-'));
const servers: Record<string, unknown> = {
  memory: {
    command: process.execPath,
    args: [join(ROOT, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js')],
    env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') },
  },
  brain: {
    command: process.execPath,
    args: [join(ROOT, 'dist/bin/main.js'), 'mcp', '--agent', 'bench', '--db', join(dir, 'b.db')],
    env: { BRAIN_EMBEDDER: 'none' },
  },
};
const filesystem = process.argv[2];
if (filesystem) servers.filesystem = { command: process.execPath, args: [filesystem, dir] };

const tokensOf = (tools: ReturnType<typeof toolSchemas>) =>
  tools.reduce((sum, t) => sum + schemaTokens({ ...t, inputSchema: t.input_schema }), 0);

// Budget 0: every tool goes behind find_tools, so both ways can be read off one manager.
const manager = createMcpManager({
  config: resolveMcpConfig({ mcpServers: servers, mcpToolBudgetTokens: 0 }, {}),
});
try {
  await manager.start();
  const all = manager.tools('probe');
  const find = all.filter((t) => t.name === 'find_tools');
  const found = await find[0]!.run({ query: 'search', limit: 3 }, {
    session: 'bench',
    signal: new AbortController().signal,
  } as never);
  const picked = manager.tools('bench').filter((t) => t.name !== 'find_tools');
  for (const s of manager.status())
    console.log(`${s.name}: ${s.connected ? `${s.tools} tools` : `down: ${s.lastError}`}`);
  const direct = manager.budget().tokens;
  const behind = tokensOf(toolSchemas(find));
  const afterPick = tokensOf(toolSchemas([...find, ...picked]));
  const count = manager.status().reduce((n, s) => n + s.tools, 0);
  console.log(`all ${count} MCP tools given directly: ~${direct} tokens`);
  console.log(
    `find_tools alone: ~${behind} tokens (saves ~${direct - behind}, ${Math.round((100 * (direct - behind)) / direct)}%)`,
  );
  console.log(
    `find_tools + the ${picked.length} it loaded for "search" (${picked.map((t) => t.name).join(', ')}): ~${afterPick} tokens`,
  );
  void found;
} finally {
  await manager.stop();
  rmSync(dir, { recursive: true, force: true });
}
