import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../../cli-in-process.js';
import { runCli, tempDir } from '../../helpers.js';
import { FIXTURE, MEMORY_SERVER } from './helpers.js';

/**
 * `brain agent mcp`: each server, connected or not, its tools, its last error. The first case runs
 * the built CLI (exit 1 through process.exitCode); the others run the same program in-process.
 */

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('brain-agent-mcp-')));
afterEach(() => cleanup());

function configFile(mcpServers: Record<string, unknown>): string {
  const path = join(dir, 'assistant.json');
  writeFileSync(path, JSON.stringify({ mcpServers }));
  return path;
}

const env = () => ({ HOME: dir, XDG_CONFIG_HOME: join(dir, 'xdg'), MEM: join(dir, 'm.jsonl') });

describe('brain agent mcp', { timeout: 60_000 }, () => {
  it('reports each server with its tool count, last error and refused entries (exit 1)', async () => {
    const config = configFile({
      memory: {
        command: process.execPath,
        args: [MEMORY_SERVER],
        env: { MEMORY_FILE_PATH: '${MEM}' },
      },
      gone: { command: join(dir, 'no-such-server') },
      typo: { command: 'x', argz: [] },
      later: { command: process.execPath, args: [FIXTURE], lazy: true },
    });
    const r = await runCli(['agent', 'mcp', '--config', config, '--json'], env());
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.servers).toEqual([
      {
        name: 'memory',
        type: 'stdio',
        connected: true,
        state: 'connected',
        lazy: false,
        tools: 9,
        last_error: null,
      },
      {
        name: 'gone',
        type: 'stdio',
        connected: false,
        state: 'waiting',
        lazy: false,
        tools: 0,
        last_error: expect.stringContaining('ENOENT'),
      },
      {
        name: 'later',
        type: 'stdio',
        connected: false,
        state: 'idle',
        lazy: true,
        tools: 0,
        last_error: null,
      },
    ]);
    expect(out.refused).toEqual([{ server: 'typo', error: 'mcpServers.typo.argz: unknown key' }]);
    expect(out.find_tools).toBe(true);

    const human = await runCliInProcess(['agent', 'mcp', '--config', config], env());
    expect(human.stdout).toMatch(/^memory +connected +stdio +9 tools$/m);
    expect(human.stdout).toMatch(/^typo +refused .*mcpServers\.typo\.argz: unknown key$/m);
    expect(human.stdout).toMatch(/^later +lazy +stdio +0 tools +starts on first use$/m);
  });

  it('exits 0 when every server is up, and says when there are none', async () => {
    const ok = await runCliInProcess(
      [
        'agent',
        'mcp',
        '--config',
        configFile({ fix: { command: process.execPath, args: [FIXTURE] } }),
      ],
      env(),
    );
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^fix +connected +stdio +6 tools$/m);
    const none = await runCliInProcess(['agent', 'mcp', '--config', configFile({})], env());
    expect(none).toMatchObject({ code: 0, stdout: expect.stringMatching(/^no mcpServers in /) });
  });

  it('exits 1 with brain: NOT_FOUND for a config file that is not there', async () => {
    const r = await runCliInProcess(['agent', 'mcp', '--config', join(dir, 'nope.json')], env());
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`brain: NOT_FOUND: no assistant config at ${join(dir, 'nope.json')}\n`);
  });
});
