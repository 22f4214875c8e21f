import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveMcpConfig } from '../../../agent/mcp/config.js';
import { createMcpManager, type McpManager } from '../../../agent/mcp/manager.js';
import { streamLog } from '../../../agent/log.js';
import { CLI, tempBrain, type TempBrain } from '../../helpers.js';
import { spawnServe, type SpawnedServe } from '../../mcp/helpers.js';
import { byName, manualTimers, MEMORY_SERVER, toolContext } from './helpers.js';

/** The MCP client against real servers: a second brain over stdio and HTTP, and server-memory. */

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function brainFile(): Promise<TempBrain> {
  const t = await tempBrain();
  cleanups.push(() => t.cleanup());
  return t;
}

async function run(
  servers: Record<string, unknown>,
  env: Record<string, string> = {},
  log = streamLog(() => {}),
): Promise<McpManager> {
  const config = resolveMcpConfig({ mcpServers: servers, mcpToolBudgetTokens: 8000 }, env);
  const manager = createMcpManager({ config, log, timers: manualTimers().timers });
  cleanups.push(() => manager.stop());
  await manager.start();
  return manager;
}

const call = (m: McpManager, name: string, input: unknown) =>
  byName(m.tools('s'), name).run(input, toolContext());

describe('the MCP client against real servers', { timeout: 60_000 }, () => {
  it("talks to a second brain's `brain mcp` over stdio", async () => {
    const other = await brainFile();
    const m = await run({
      brain2: {
        command: process.execPath,
        args: [CLI, 'mcp', '--agent', 'helper', '--db', other.path],
        env: { BRAIN_EMBEDDER: 'none' },
      },
    });
    expect(m.status()[0]).toMatchObject({ connected: true, tools: 13 });
    expect(byName(m.tools('s'), 'mcp__brain2__poll_inbox').readOnly).toBe(true);
    expect(byName(m.tools('s'), 'mcp__brain2__send_message').readOnly).toBe(false);
    const sent = await call(m, 'mcp__brain2__send_message', { to: 'ann', body: 'from afar' });
    expect(sent.isError).toBeUndefined();
    const id = /sent (\S+)/.exec(sent.content)![1]!;
    expect(other.brain.messages.getMessage(id)).toMatchObject({
      from: 'helper',
      body: 'from afar',
    });
  });

  it('uses @modelcontextprotocol/server-memory with its env from ${VAR}', async () => {
    const t = await brainFile();
    const file = join(t.dir, 'memory.jsonl');
    const m = await run(
      {
        memory: {
          command: process.execPath,
          args: [MEMORY_SERVER],
          env: { MEMORY_FILE_PATH: '${MEM_FILE}' },
        },
      },
      { MEM_FILE: file },
    );
    expect(m.status()[0]).toMatchObject({ connected: true, tools: 9 });
    await call(m, 'mcp__memory__create_entities', {
      entities: [{ name: 'Ada', entityType: 'person', observations: ['likes tea'] }],
    });
    const found = await call(m, 'mcp__memory__search_nodes', { query: 'Ada' });
    expect(found.untrusted).toBe(true);
    expect(found.content).toContain('likes tea');
    expect(readFileSync(file, 'utf8')).toContain('Ada');
  });

  it('talks to `brain serve` over HTTP with a bearer token from ${VAR}, never logging it', async () => {
    const t = await brainFile();
    const token = 'agent-mcp-token-0123456789abcdef';
    const tokens = join(t.dir, 'tokens');
    writeFileSync(tokens, `${token} helper\n`);
    chmodSync(tokens, 0o600);
    const serve: SpawnedServe = await spawnServe([
      '--port',
      '0',
      '--tokens',
      tokens,
      '--db',
      t.path,
    ]);
    cleanups.push(() => serve.stop());
    const lines: string[] = [];
    const log = streamLog((l) => lines.push(l), 'debug');
    const m = await run(
      {
        good: {
          type: 'http',
          url: serve.url,
          headers: { Authorization: 'Bearer ${HELPER_TOKEN}' },
        },
        wrong: {
          type: 'http',
          url: serve.url,
          headers: { Authorization: 'Bearer not-the-token-at-all' },
        },
      },
      { HELPER_TOKEN: token },
      log,
    );
    const [good, wrong] = m.status();
    expect(good).toMatchObject({ connected: true, tools: 13 });
    expect(wrong).toMatchObject({ connected: false, state: 'waiting' });
    expect(wrong!.lastError).toMatch(/401|unauthor/i);
    const sent = await call(m, 'mcp__good__send_message', { to: 'ann', body: 'over http' });
    const id = /sent (\S+)/.exec(sent.content)![1]!;
    expect(t.brain.messages.getMessage(id)).toMatchObject({ from: 'helper' });
    expect(lines.join('')).toContain('mcp.connected');
    expect(lines.join('')).not.toContain(token);
    expect(lines.join('')).not.toContain('not-the-token-at-all');
    expect(lines.join('')).not.toContain('over http');
  });
});
