import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../../../cli-in-process.js';
import { CLI, tempDir } from '../../../helpers.js';
import { startFakeAnthropic } from '../../../fakes/anthropic.js';
import { startFakeDiscord } from '../../../fakes/discord.js';
import { configFileBody } from '../../service/helpers.js';
import { OWNER, OWNER_DM } from './setup.js';

/** The built `brain agent` as a real process with Discord configured: the loopback Discord and model. */

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup() {
  const { dir, cleanup } = tempDir('brain-agent-discord-');
  cleanups.push(cleanup);
  const anthropic = await startFakeAnthropic();
  cleanups.push(() => anthropic.close());
  const discord = await startFakeDiscord();
  cleanups.push(() => discord.close());
  const config = join(dir, 'assistant.json');
  writeFileSync(
    config,
    JSON.stringify(
      configFileBody(anthropic.baseUrl, dir, {
        owner: { name: 'ann', discord: OWNER.id },
        discord: { allowedUserIds: [OWNER.id], apiBase: discord.apiBase },
      }),
    ),
  );
  const env = {
    BRAIN_DB: join(dir, 'brain.db'),
    BRAIN_ASSISTANT_CONFIG: config,
    XDG_CONFIG_HOME: join(dir, 'cfg'),
    ANTHROPIC_API_KEY: 'sk-test',
    DISCORD_BOT_TOKEN: discord.token,
  };
  return { anthropic, discord, env };
}

describe('brain agent with Discord', { timeout: 120_000 }, () => {
  it('--check finds the bot and the gateway, and names a 4014 refusal', async () => {
    const s = await setup();
    // In this process: --check's wiring as a process is test/agent/service/agent-cli.test.ts's.
    const ok = await runCliInProcess(['agent', '--check'], s.env);
    expect(ok.stdout).toMatch(/^ok {3}discord token: bot brainbot/m);
    expect(ok.stdout).toMatch(/^ok {3}discord gateway: connected/m);
    s.discord.refuseIntents = true;
    const refused = await runCliInProcess(['agent', '--check'], s.env);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/discord gateway: the gateway closed with 4014/);
    expect(refused.stdout + refused.stderr).not.toContain(s.discord.token);
  });

  it("answers the owner's DM while running, and logs neither the token nor the words", async () => {
    const s = await setup();
    const child: ChildProcess = spawn(process.execPath, [CLI, 'agent'], {
      env: { ...process.env, BRAIN_EMBEDDER: 'none', NO_COLOR: '1', ...s.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    cleanups.push(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      return exited;
    });
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    await s.discord.ready();
    s.anthropic.script.push({ text: 'Noted, Ann.' });
    s.discord.dispatchMessage({ channelId: OWNER_DM, author: OWNER, content: 'buy oat milk' });
    const reply = await s.discord.waitForCall(
      (c) => c.method === 'POST' && c.path === `/channels/${OWNER_DM}/messages`,
    );
    expect(reply.body).toMatchObject({ content: 'Noted, Ann.' });
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stderr).toMatch(/discord\.connected/);
    expect(stderr).not.toContain(s.discord.token);
    expect(stderr).not.toContain('buy oat milk');
    expect(stderr).not.toContain('Noted, Ann');
  });
});
