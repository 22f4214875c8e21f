import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic.js';
import { CLI, runCli, tempDir } from '../helpers.js';
import { loadedModules, moduleHookArgs } from './module-hooks.js';

let dir: string;
let cleanup: () => void;
let fake: FakeAnthropic;
/** No assistant config unless a test writes one: XDG_CONFIG_HOME is an empty folder. */
let env: Record<string, string>;
beforeEach(async () => {
  ({ dir, cleanup } = tempDir('brain-extract-model-cli-'));
  fake = await startFakeAnthropic();
  env = {
    BRAIN_DB: join(dir, 'brain.db'),
    XDG_CONFIG_HOME: join(dir, 'xdg'),
    HOME: dir,
    BRAIN_ASSISTANT_CONFIG: '',
    ANTHROPIC_API_KEY: 'sk-test-secret-key',
  };
});
afterEach(async () => {
  await fake.close();
  cleanup();
});

const brain = async (args: string[], more: Record<string, string> = {}) => {
  const r = await runCli(args, { ...env, ...more });
  return { ...r, json: () => JSON.parse(r.stdout) as any };
};

function writeConfig(extract: Record<string, unknown>): string {
  const path = join(dir, 'assistant.json');
  writeFileSync(
    path,
    JSON.stringify({
      owner: 'ann',
      workspace: dir,
      models: {
        endpoints: [
          { provider: 'anthropic', model: 'claude-sonnet-4-5', baseUrl: fake.baseUrl },
          { provider: 'anthropic', model: 'claude-haiku-4-5', baseUrl: fake.baseUrl },
        ],
      },
      extract,
    }),
  );
  return path;
}

async function say(body: string): Promise<string> {
  const sent = await brain([
    'send',
    '--agent',
    'ana',
    '--to',
    'bo',
    '--subject',
    'the hub',
    '--body',
    body,
    '--json',
  ]);
  expect(sent.code).toBe(0);
  return sent.json().id;
}

describe('brain extract with extract.model', () => {
  it('reads with the configured model, says so, and records the calls with their cost', async () => {
    const decided = await say('We decided: the hub uses SQLite.');
    const config = writeConfig({ model: 'claude-haiku-4-5' });
    fake.script.push({
      text:
        'Here you go:\n```json\n' +
        JSON.stringify({
          entries: [
            {
              content: 'The hub uses SQLite',
              category: 'decision',
              importance: 2,
              sources: [decided],
            },
          ],
        }) +
        '\n```',
      usage: { input_tokens: 700, output_tokens: 60 },
    });
    const run = await brain(['extract'], { BRAIN_ASSISTANT_CONFIG: config });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /read 1 message with model@1 on anthropic:claude-haiku-4-5@1: 1 new, 0 merged/,
    );
    expect(fake.requests.map((r) => r.body.model)).toEqual(['claude-haiku-4-5']);

    const insights = (await brain(['insights', '--json'])).json().insights;
    expect(insights).toMatchObject([
      {
        content: 'The hub uses SQLite',
        extractor: 'model@1',
        sources: [{ message_id: decided }],
      },
    ]);
    const usage = (await brain(['usage', '--by', 'source', '--json'])).json();
    const row = usage.rows.find((r: any) => r.key === 'extraction');
    expect(row).toMatchObject({ calls: 1, input_tokens: 700, output_tokens: 60 });
    expect(row.cost_usd).toBeCloseTo((700 * 1 + 60 * 5) / 1e6, 10);

    // --config names the file as brain agent's does; --json says the endpoint too.
    await say('Ana will write the migration.');
    fake.script.push({ text: '{"entries": []}' });
    const json = await brain(['extract', '--config', config, '--json']);
    expect(json.json()).toMatchObject({
      extractor: 'model@1',
      endpoint: 'anthropic:claude-haiku-4-5@1',
      read: 1,
      failed: 0,
    });
  });

  it('exits 1 with the reason when the model answers badly twice, and the message waits', async () => {
    await say('We ship on Friday.');
    const config = writeConfig({ model: 1 });
    fake.script.push({ text: 'We ship on Friday!' }, { text: 'Still not JSON.' });
    const run = await brain(['extract'], { BRAIN_ASSISTANT_CONFIG: config });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /gave no usable entries twice: the answer was not JSON; then the answer was not JSON/,
    );
    expect((await brain(['insights', '--json'])).json().insights).toEqual([]);
    expect(fake.requests).toHaveLength(2);
    // It waits for its retry: the next run asks nothing.
    const next = await brain(['extract', '--json'], { BRAIN_ASSISTANT_CONFIG: config });
    expect(next.json()).toMatchObject({ read: 0, failed: 0 });
    expect(fake.requests).toHaveLength(2);
  });

  it('refuses an extract.model that names no endpoint, by its key path', async () => {
    const config = writeConfig({ model: 'gpt-5' });
    const run = await brain(['extract'], { BRAIN_ASSISTANT_CONFIG: config });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/extract\.model: no endpoint named "gpt-5"/);
    expect(fake.requests).toEqual([]);
  });

  it('reads offline without an assistant config, loading neither the assistant nor zod nor an SDK', async () => {
    await say('We decided to use SQLite for the hub.');
    const child = spawnSync(process.execPath, [...moduleHookArgs(dir), CLI, 'extract', '--json'], {
      env: { ...process.env, ...env, BRAIN_EMBEDDER: 'none', NO_COLOR: '1' },
      encoding: 'utf8',
    });
    expect(child.status).toBe(0);
    expect(JSON.parse(child.stdout)).toMatchObject({ extractor: 'offline@1', read: 1 });
    const urls = loadedModules(child.stderr);
    expect(urls.length).toBeGreaterThan(0);
    expect(urls.filter((u) => /\/node_modules\/(zod|@anthropic-ai|ollama)\//.test(u))).toEqual([]);
  });

  it('reads offline when the config names no model, with its extract.threads', async () => {
    await say('We decided to use SQLite for the hub.');
    const config = writeConfig({ threads: 'none' });
    const run = await brain(['extract'], { BRAIN_ASSISTANT_CONFIG: config });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/extract\.threads is none: nothing is read/);
    expect(run.stdout).toMatch(/read 0 messages with offline@1/);
    expect(fake.requests).toEqual([]);
  });
});
