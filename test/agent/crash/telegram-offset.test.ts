import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, tempDir } from '../../helpers.js';
import { startFakeAnthropic } from '../../fakes/anthropic.js';
import { startFakeTelegram } from '../../fakes/telegram.js';

/**
 * A crash drill with the built `brain agent`: killed with SIGKILL after answering an update that
 * Telegram then sends again (no later getUpdates confirmed it), restarted; the resent update is
 * not answered again, and the one sent during the downtime is answered once.
 */

const OWNER = 111;
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function agent(env: Record<string, string>) {
  const child = spawn(process.execPath, [CLI, 'agent'], {
    env: { ...process.env, BRAIN_EMBEDDER: 'none', NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    return exited;
  });
  return { child, exited, stderr: () => stderr };
}

describe('brain agent killed and restarted', { timeout: 120_000 }, () => {
  it('answers an update Telegram resends after a crash once, and one sent during the downtime once', async () => {
    const { dir, cleanup } = tempDir('brain-crash-offset-');
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

    const first = agent(env);
    model.script.push({ text: 'First answer.' }, { text: 'Second answer.' });
    const firstId = tg.message(OWNER, 'first question');
    await tg.waitFor('sendMessage', 1);
    first.child.kill('SIGKILL');
    await first.exited;

    // Telegram sends again what no getUpdates confirmed; the second message comes while down.
    tg.push({ update_id: firstId, message: ownerMessage('first question') });
    tg.message(OWNER, 'second question');
    const polls = tg.callsOf('getUpdates').length;
    const second = agent(env);
    await tg.waitFor('sendMessage', 2);
    // A further poll after the second answer: nothing else was waiting to be answered.
    await tg.waitFor('getUpdates', polls + 3);
    expect(tg.callsOf('sendMessage').map((c) => c.params.text)).toEqual([
      'First answer.',
      'Second answer.',
    ]);
    expect(model.requests).toHaveLength(2);
    expect(second.stderr()).toContain('telegram.offset_restored');
    second.child.kill('SIGTERM');
    await second.exited;
  });
});

/** A private text message from the owner, as an update carries it. */
function ownerMessage(text: string): Record<string, unknown> {
  return {
    message_id: 1,
    date: Math.floor(Date.now() / 1000),
    chat: { id: OWNER, type: 'private', first_name: `user${OWNER}` },
    from: { id: OWNER, is_bot: false, first_name: `user${OWNER}` },
    text,
  };
}
