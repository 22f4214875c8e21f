import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../helpers.js';
import { BOT_USER } from '../../../fakes/telegram.js';
import { agentSetup } from '../../agent-process.js';

/** The built `brain agent` as a real process, its Telegram channel polling the fake Bot API. */

const OWNER = 111;
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('brain agent with Telegram', { timeout: 120_000 }, () => {
  it('answers the owner on Telegram in the shared session, says the bot on --check, and stops on SIGTERM', async () => {
    const { tg, model, env, start } = await agentSetup(cleanups, {
      prefix: 'brain-agent-tg-',
      owner: OWNER,
    });

    const check = await runCli(['agent', '--check'], env);
    expect(check.stdout).toMatch(new RegExp(`ok +telegram: bot @${BOT_USER.username}`));
    expect(check.stdout + check.stderr).not.toContain(tg.token);

    const service = start();

    model.script.push({ text: 'Hello from the **service**.' });
    tg.message(OWNER, 'hi from my phone');
    const [reply] = await tg.waitFor('sendMessage', 1);
    expect(reply!.params.text).toBe('Hello from the <b>service</b>.');

    const sessions = await runCli(['threads', '--json'], env);
    expect(sessions.stdout).toContain('chat/default');

    expect(await service.kill('SIGTERM')).toBe(0);
    const stderr = service.stderr();
    expect(stderr).toMatch(/telegram\.polling/);
    expect(stderr).not.toContain(tg.token);
    expect(stderr).not.toContain('hi from my phone');
    expect(stderr).not.toContain('Hello from the');
  });
});
