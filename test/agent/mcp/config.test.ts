import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadAssistantConfig } from '../../../agent/config.js';
import { resolveMcpConfig, substituteEnv } from '../../../agent/mcp/config.js';
import { tempDir } from '../../helpers.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('brain-mcp-config-')));
afterEach(() => cleanup());

function load(file: unknown, env: Record<string, string> = {}) {
  const path = join(dir, 'assistant.json');
  writeFileSync(path, JSON.stringify(file));
  return loadAssistantConfig({ file: path, env: { HOME: dir, ...env } });
}

describe('mcpServers in the assistant config', () => {
  it('takes Claude Code and Claude Desktop entries as they are written, with the defaults', () => {
    const config = load({
      mcpServers: {
        memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
        brain: {
          type: 'http',
          url: 'http://127.0.0.1:7337/mcp',
          headers: { Authorization: 'Bearer abc' },
        },
      },
    });
    expect(config.mcp).toEqual({
      toolBudgetTokens: 8000,
      errors: [],
      servers: [
        {
          name: 'memory',
          type: 'stdio',
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-memory'],
          env: {},
          enabledTools: undefined,
          disabledTools: undefined,
          timeoutMs: 60_000,
          lazy: false,
        },
        {
          name: 'brain',
          type: 'http',
          url: 'http://127.0.0.1:7337/mcp',
          headers: { Authorization: 'Bearer abc' },
          enabledTools: undefined,
          disabledTools: undefined,
          timeoutMs: 60_000,
          lazy: false,
        },
      ],
    });
  });

  it('fills ${VAR} in env and headers from the environment, with :- defaults', () => {
    const config = load(
      {
        mcpServers: {
          gh: {
            command: 'gh-mcp',
            env: { TOKEN: '${GH_TOKEN}', MODE: '${GH_MODE:-read}', LIT: 'plain' },
          },
          api: {
            type: 'http',
            url: 'https://x.test/mcp',
            headers: { Authorization: 'Bearer ${API_KEY}' },
          },
        },
      },
      { GH_TOKEN: 'ghp_secret', API_KEY: 'k-123' },
    );
    const [gh, api] = config.mcp.servers;
    expect(gh).toMatchObject({ env: { TOKEN: 'ghp_secret', MODE: 'read', LIT: 'plain' } });
    expect(api).toMatchObject({ headers: { Authorization: 'Bearer k-123' } });
  });

  it('refuses a bad entry by its key path while the other entries are kept', () => {
    const config = load(
      {
        mcpServers: {
          good: { command: 'ok-server', timeoutSeconds: 5, lazy: true },
          typo: { command: 'x', argz: [] },
          noUrl: { type: 'http' },
          nothing: { args: ['a'] },
          secret: { type: 'http', url: 'https://x.test/mcp', headers: { A: '${MISSING}' } },
          'bad name': { command: 'x' },
          old: { type: 'sse', url: 'https://x.test/sse' },
        },
      },
      {},
    );
    expect(config.mcp.servers.map((s) => [s.name, s.timeoutMs, s.lazy])).toEqual([
      ['good', 5000, true],
    ]);
    expect(config.mcp.errors).toEqual([
      { server: 'typo', message: 'mcpServers.typo.argz: unknown key' },
      { server: 'noUrl', message: expect.stringMatching(/^mcpServers\.noUrl\.url: /) },
      { server: 'nothing', message: expect.stringMatching(/^mcpServers\.nothing\.command: /) },
      {
        server: 'secret',
        message: 'mcpServers.secret.headers.A: ${MISSING} is not set in the environment',
      },
      { server: 'bad name', message: expect.stringMatching(/^mcpServers\.bad name: /) },
      { server: 'old', message: expect.stringMatching(/^mcpServers\.old\.type: sse/) },
    ]);
  });

  it('refuses a file whose mcpServers is not an object, naming the key', () => {
    expect(() => load({ mcpServers: [] })).toThrow(/mcpServers: /);
    expect(() => load({ mcpToolBudgetTokens: -1 })).toThrow(/mcpToolBudgetTokens: /);
  });

  it('leaves text without ${…} alone and names the first unset variable', () => {
    expect(substituteEnv('a $HOME b', {})).toEqual({ value: 'a $HOME b' });
    expect(substituteEnv('${A}${B}', { B: 'b' })).toEqual({ missing: 'A' });
    expect(resolveMcpConfig({ mcpToolBudgetTokens: 10 }, {})).toEqual({
      servers: [],
      errors: [],
      toolBudgetTokens: 10,
    });
  });
});
