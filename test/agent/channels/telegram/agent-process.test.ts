import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, runCli, tempDir } from '../../../helpers.js';
import { startFakeAnthropic } from '../../../fakes/anthropic.js';
import { BOT_USER, startFakeTelegram } from '../../../fakes/telegram.js';

/** The built `brain agent` as a real process, its Telegram channel polling the fake Bot API. */

const OWNER = 111;
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('brain agent with Telegram', { timeout: 120_000 }, () => {
  it('answers the owner on Telegram in the shared session, says the bot on --check, and stops on SIGTERM', async () => {
    const { dir, cleanup } = tempDir('brain-agent-tg-');
    cleanups.push(cleanup);
    const tg = await startFakeTelegram();
    cleanups.push(() => tg.close());
    const model = await startFakeAnthropic();
    cleanups.push(() => model.close());
    mkdirSync(join(dir, 'ws'));
    const config = join(dir, 'assistant.json');
    writeFileSync(
      config,
      JSON.stringify({
        agent: 'assistant',
        owner: { name: 'ann', telegram: OWNER },
        workspace: join(dir, 'ws'),
        models: {
          endpoints: [{ provider: 'anthropic', model: 'claude-fake', baseUrl: model.baseUrl }],
        },
        telegram: { allowedChatIds: [OWNER], apiRoot: tg.apiRoot },
      }),
    );
    const env = {
      BRAIN_DB: join(dir, 'brain.db'),
      BRAIN_ASSISTANT_CONFIG: config,
      XDG_CONFIG_HOME: join(dir, 'cfg'),
      ANTHROPIC_API_KEY: 'sk-test',
      TELEGRAM_BOT_TOKEN: tg.token,
    };

    const check = await runCli(['agent', '--check'], env);
    expect(check.stdout).toMatch(new RegExp(`ok +telegram: bot @${BOT_USER.username}`));
    expect(check.stdout + check.stderr).not.toContain(tg.token);

    const child = spawn(process.execPath, [CLI, 'agent'], {
      env: { ...process.env, BRAIN_EMBEDDER: 'none', NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    cleanups.push(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      return exited;
    });

    model.script.push({ text: 'Hello from the **service**.' });
    tg.message(OWNER, 'hi from my phone');
    const [reply] = await tg.waitFor('sendMessage', 1);
    expect(reply!.params.text).toBe('Hello from the <b>service</b>.');

    const sessions = await runCli(['threads', '--json'], env);
    expect(sessions.stdout).toContain('chat/default');

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stderr).toMatch(/telegram\.polling/);
    expect(stderr).not.toContain(tg.token);
    expect(stderr).not.toContain('hi from my phone');
    expect(stderr).not.toContain('Hello from the');
  });
});
