import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadAssistantConfig, loginAgentName } from '../../agent/config.js';
import { parseJsonc } from '../../agent/jsonc.js';
import { tempDir } from '../helpers.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('brain-agent-config-')));
afterEach(() => cleanup());

/** An environment with nothing but a home and an XDG config folder in the temp dir. */
function env(extra: Record<string, string> = {}) {
  return { HOME: dir, XDG_CONFIG_HOME: join(dir, 'xdg'), ...extra };
}

function write(name: string, text: string): string {
  const path = join(dir, name);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  return path;
}

describe('loadAssistantConfig', () => {
  it('gives every default when there is no file', () => {
    const config = loadAssistantConfig({ env: env() });
    expect(config).toEqual({
      file: join(dir, 'xdg', 'brain', 'assistant.json'),
      fileFound: false,
      agent: 'assistant',
      owner: loginAgentName({}),
      workspace: join(dir, 'xdg', 'brain', 'workspace'),
      models: {
        endpoints: [
          { provider: 'ollama', model: 'llama3.1', tags: [], priority: 0, maxTokens: 4096 },
        ],
        chosenBecause: 'no ANTHROPIC_API_KEY set',
      },
      compaction: { thresholdTokens: 100_000, keepRecentTokens: 20_000 },
      maxRounds: 20,
      delegation: {
        maxRounds: 10,
        maxTokens: 200_000,
        maxCostUsd: 1,
        maxDepth: 1,
        maxResultChars: 4000,
      },
      memory: { maxTokens: 1500, limit: 12 },
      timeZone: undefined,
      tools: {
        roots: [],
        web: { allowHosts: [], maxBytes: 2 * 1024 * 1024, timeoutSeconds: 15 },
        runCommand: {
          defaultTimeoutS: 30,
          maxTimeoutS: 600,
          maxOutputChars: 30_000,
          roots: [],
          sandbox: 'auto',
          network: 'approved',
        },
      },
      permissions: {
        tools: {},
        approvalTimeoutSeconds: 120,
        profiles: {
          owner: { tools: {} },
          contact: { tools: {} },
          agent: { tools: {} },
          scheduled: { tools: {} },
        },
      },
      mcp: { servers: [], errors: [], toolBudgetTokens: 8000 },
      skills: { budgetTokens: 2000, mcpServers: [] },
      ownerIdentities: {},
      lane: { maxConcurrent: 2 },
      relayToOwner: false,
      retention: undefined,
      webhooks: [],
      hooks: [],
      telegram: undefined,
      discord: undefined,
      scheduler: {
        catchUpMinutes: 60,
        cron: [],
        email: [],
        emailPasswords: {},
        heartbeat: undefined,
        reflection: { everyHours: 24, enabled: true },
        reminders: { checkEverySeconds: 30 },
      },
      commandEnv: {
        HOME: expect.any(String),
        PAGER: 'cat',
        GIT_PAGER: 'cat',
        GIT_TERMINAL_PROMPT: '0',
        GIT_NO_LAZY_FETCH: '1',
      },
      secrets: {
        anthropicApiKey: undefined,
        anthropicBaseUrl: undefined,
        ollamaHost: undefined,
        apiKeys: {},
      },
    });
    expect(config.owner).toMatch(/^[A-Za-z0-9][A-Za-z0-9_.@-]*$/);
  });

  it('defaults to Anthropic when a key is set, and takes secrets from the environment only', () => {
    const config = loadAssistantConfig({
      env: env({
        ANTHROPIC_API_KEY: 'sk-test',
        ANTHROPIC_BASE_URL: 'http://127.0.0.1:9/',
        OLLAMA_HOST: 'http://127.0.0.1:11434',
      }),
    });
    expect(config.models.endpoints.map((e) => [e.provider, e.model])).toEqual([
      ['anthropic', 'claude-sonnet-5-5'],
    ]);
    expect(config.secrets).toEqual({
      anthropicApiKey: 'sk-test',
      anthropicBaseUrl: 'http://127.0.0.1:9/',
      ollamaHost: 'http://127.0.0.1:11434',
      apiKeys: {},
    });
  });

  it('reads a file with comments, trailing commas and comment-like text in strings', () => {
    const file = write(
      'xdg/brain/assistant.json',
      `// my assistant
      {
        /* who it is */
        "agent": "helper", // trailing
        "owner": "ada",
        "workspace": "ws//not-a-comment/*nor this*/",
        "models": { "endpoints": [
          { "provider": "anthropic", "model": "claude-haiku-4-5", "tags": ["fast"], },
        ] },
        "compaction": { "thresholdTokens": 50000 },
        "timeZone": "Europe/Paris",
      }`,
    );
    const config = loadAssistantConfig({ env: env() });
    expect(config.file).toBe(file);
    expect(config.fileFound).toBe(true);
    expect(config).toMatchObject({
      agent: 'helper',
      owner: 'ada',
      workspace: resolve(dir, 'xdg', 'brain', 'ws//not-a-comment/*nor this*/'),
      compaction: { thresholdTokens: 50_000, keepRecentTokens: 20_000 },
      timeZone: 'Europe/Paris',
    });
    expect(config.models.endpoints[0]).toEqual({
      provider: 'anthropic',
      model: 'claude-haiku-4-5',
      tags: ['fast'],
      priority: 0,
      maxTokens: 4096,
    });
  });

  it('names the key path of a bad value', () => {
    const file = write(
      'bad.json',
      JSON.stringify({ models: { endpoints: [{ provider: 'gemini', model: 'x' }] }, maxRounds: 0 }),
    );
    expect(() => loadAssistantConfig({ file, env: env() })).toThrow(
      /models\.endpoints\.0\.provider: must be one of anthropic, ollama, openai; maxRounds: /,
    );
  });

  it('reads the tools settings and names the key path of a bad one', () => {
    const good = write(
      'tools.json',
      JSON.stringify({
        tools: {
          roots: ['~/notes'],
          web: { allowHosts: ['wiki.lan'], search: { provider: 'brave' } },
        },
      }),
    );
    expect(loadAssistantConfig({ file: good, env: env() }).tools).toEqual({
      roots: ['~/notes'],
      web: {
        allowHosts: ['wiki.lan'],
        maxBytes: 2 * 1024 * 1024,
        timeoutSeconds: 15,
        search: { provider: 'brave' },
      },
      runCommand: {
        defaultTimeoutS: 30,
        maxTimeoutS: 600,
        maxOutputChars: 30_000,
        roots: [],
        sandbox: 'auto',
        network: 'approved',
      },
    });
    const bad = write(
      'tools-bad.json',
      JSON.stringify({ tools: { web: { timeoutSeconds: 0, search: { provider: 'searxng' } } } }),
    );
    expect(() => loadAssistantConfig({ file: bad, env: env() })).toThrow(
      /tools\.web\.timeoutSeconds: .*tools\.web\.search\.baseUrl/,
    );
  });

  it('refuses an unknown key, naming it by its path', () => {
    const file = write('typo.json', '{ "maxRound": 5, "memory": { "limt": 3 } }');
    let message = '';
    try {
      loadAssistantConfig({ file, env: env() });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain('maxRound: unknown key');
    expect(message).toContain('memory.limt: unknown key');
    expect(message.startsWith(file)).toBe(true);
  });

  it('refuses a time zone it does not know and keepRecentTokens not below the threshold', () => {
    const file = write(
      'tz.json',
      '{"timeZone": "Mars/Olympus", "compaction": {"thresholdTokens": 5000, "keepRecentTokens": 5000}}',
    );
    expect(() => loadAssistantConfig({ file, env: env() })).toThrow(
      /compaction\.keepRecentTokens: keepRecentTokens must be below thresholdTokens; timeZone: must be an IANA time zone/,
    );
  });

  it('reports where JSON is broken', () => {
    const file = write('broken.json', '{\n  "agent": "a"\n  "owner": "b"\n}');
    expect(() => loadAssistantConfig({ file, env: env() })).toThrow(/not valid JSON: .* line 3/);
  });

  it('prefers --config to BRAIN_ASSISTANT_CONFIG to the XDG path', () => {
    write('xdg/brain/assistant.json', '{"agent": "from-xdg"}');
    const fromEnv = write('env.json', '{"agent": "from-env"}');
    const fromFlag = write('flag.json', '{"agent": "from-flag"}');
    expect(loadAssistantConfig({ env: env() }).agent).toBe('from-xdg');
    expect(loadAssistantConfig({ env: env({ BRAIN_ASSISTANT_CONFIG: fromEnv }) }).agent).toBe(
      'from-env',
    );
    expect(
      loadAssistantConfig({ file: fromFlag, env: env({ BRAIN_ASSISTANT_CONFIG: fromEnv }) }).agent,
    ).toBe('from-flag');
  });

  it('refuses a named file that does not exist', () => {
    expect(() => loadAssistantConfig({ file: join(dir, 'missing.json'), env: env() })).toThrow(
      /no assistant config at .*missing\.json/,
    );
  });

  it('resolves ~ in the workspace to the home folder', () => {
    const file = write('home.json', '{"workspace": "~/notes"}');
    expect(loadAssistantConfig({ file, env: env() }).workspace).toBe(join(dir, 'notes'));
  });
});

describe('parseJsonc', () => {
  it('keeps escaped quotes and slashes inside strings', () => {
    expect(parseJsonc('{"a": "say \\"//hi\\" /* x */", "b": [1,2,], } // end')).toEqual({
      a: 'say "//hi" /* x */',
      b: [1, 2],
    });
  });
});
