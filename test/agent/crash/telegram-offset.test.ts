import { afterEach, describe, expect, it } from 'vitest';
import { agentSetup } from '../agent-process.js';

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

describe('brain agent killed and restarted', { timeout: 120_000 }, () => {
  it('answers an update Telegram resends after a crash once, and one sent during the downtime once', async () => {
    const { tg, model, start } = await agentSetup(cleanups, {
      prefix: 'brain-crash-offset-',
      owner: OWNER,
    });

    const first = start();
    model.script.push({ text: 'First answer.' }, { text: 'Second answer.' });
    const firstId = tg.message(OWNER, 'first question');
    await tg.waitFor('sendMessage', 1);
    await first.kill('SIGKILL');

    // Telegram sends again what no getUpdates confirmed; the second message comes while down.
    tg.push({ update_id: firstId, message: ownerMessage('first question') });
    tg.message(OWNER, 'second question');
    const polls = tg.callsOf('getUpdates').length;
    const second = start();
    await tg.waitFor('sendMessage', 2);
    // A further poll after the second answer: nothing else was waiting to be answered.
    await tg.waitFor('getUpdates', polls + 3);
    expect(tg.callsOf('sendMessage').map((c) => c.params.text)).toEqual([
      'First answer.',
      'Second answer.',
    ]);
    expect(model.requests).toHaveLength(2);
    expect(second.stderr()).toContain('telegram.offset_restored');
    await second.kill('SIGTERM');
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
