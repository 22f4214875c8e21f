import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeTelegram } from '../fakes/telegram.js';
import { ROOT, tempDir } from '../helpers.js';

/** tsc's build, module by module, so each module shows by its own name (the bundle keeps its shape). */
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
import { loadedModules, moduleHookArgs } from './module-hooks.js';

let dir: string;
let cleanup: () => void;
beforeAll(() => ({ dir, cleanup } = tempDir('brain-agent-startup-')));
afterAll(() => cleanup());

/**
 * Starts the built `brain agent` with a module resolution hook, waits for its `ready` line, stops
 * it with SIGTERM, and returns every module URL it resolved in its whole life. No turn runs, so
 * what it loaded is what start-up needs.
 */
async function modulesOfAgent(
  name: string,
  config: Record<string, unknown>,
  env: Record<string, string> = {},
): Promise<{ ready: boolean; urls: string[]; stderr: string }> {
  const hook = moduleHookArgs(dir);
  const file = join(dir, `${name}.json`);
  writeFileSync(
    file,
    JSON.stringify({ agent: 'assistant', owner: 'ann', workspace: dir, ...config }),
  );
  const child = spawn(process.execPath, [...hook, CLI, 'agent', '--config', file], {
    env: {
      ...process.env,
      BRAIN_DB: join(dir, `${name}.db`),
      BRAIN_EMBEDDER: 'none',
      XDG_CONFIG_HOME: dir,
      NO_COLOR: '1',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  let ready = false;
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    if (!ready && /^brain: info ready /m.test(stderr)) {
      ready = true;
      child.kill('SIGTERM');
    }
  });
  await new Promise<void>((resolve) => child.on('close', () => resolve()));
  const urls = loadedModules(stderr);
  return { ready, urls, stderr };
}

const dist = (path: string) => pathToFileURL(join(ROOT, 'dist', path)).href;
const pkg = (name: string) => new RegExp(`/node_modules/${name}/`);

/** What the first turn, a configured channel, an MCP server or a mail watcher loads, not start-up. */
const onDemand = {
  'the Anthropic SDK': pkg('@anthropic-ai/sdk'),
  'the Ollama chat client': /\/dist\/agent\/models\/ollama\.js$/,
  'the MCP SDK': pkg('@modelcontextprotocol/sdk'),
  grammY: pkg('grammy'),
  'discord.js': pkg('discord\\.js'),
  imapflow: pkg('imapflow'),
  'html-to-text': pkg('html-to-text'),
  marked: pkg('marked'),
  'the bash grammar': pkg('web-tree-sitter'),
};
const loadedOf = (urls: string[], except: string[] = []) =>
  Object.entries(onDemand)
    .filter(([name, re]) => !except.includes(name) && urls.some((url) => re.test(url)))
    .map(([name]) => name);

const ollamaEndpoint = {
  models: { endpoints: [{ provider: 'ollama', model: 'none', baseUrl: 'http://127.0.0.1:9' }] },
};

describe('brain agent start-up as a process', { timeout: 60_000 }, () => {
  it('is ready without loading the model SDKs, the tools’ libraries, MCP or any channel', async () => {
    const run = await modulesOfAgent(
      'bare',
      {
        models: {
          endpoints: [
            { provider: 'anthropic', model: 'claude-test', baseUrl: 'http://127.0.0.1:9' },
            ...ollamaEndpoint.models.endpoints,
          ],
        },
      },
      { ANTHROPIC_API_KEY: 'sk-test' },
    );
    expect(run.ready, run.stderr).toBe(true);
    // The hook saw the service's own modules, so an empty list below means something.
    expect(run.urls).toContain(dist('agent/service/service.js'));
    expect(run.urls).toContain(dist('agent/models/create.js'));
    expect(loadedOf(run.urls)).toEqual([]);
  });

  it('loads grammY when Telegram is configured, and still no model SDK or other channel', async () => {
    const telegram = await startFakeTelegram();
    try {
      const run = await modulesOfAgent(
        'telegram',
        { ...ollamaEndpoint, telegram: { allowedChatIds: [1], apiRoot: telegram.apiRoot } },
        { TELEGRAM_BOT_TOKEN: telegram.token },
      );
      expect(run.ready, run.stderr).toBe(true);
      expect(run.urls.some((url) => onDemand.grammY.test(url))).toBe(true);
      expect(loadedOf(run.urls, ['grammY', 'marked'])).toEqual([]);
    } finally {
      await telegram.close();
    }
  });
});
