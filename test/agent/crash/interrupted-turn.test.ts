import { afterEach, describe, expect, it } from 'vitest';
import type { FakeTelegram } from '../../fakes/telegram.js';
import { agentSetup } from '../agent-process.js';

/**
 * Crash drills with the built `brain agent`: SIGKILL while the owner's Telegram turn waits on the
 * model, restart; the owner gets exactly one reply (nothing with side effects had run) or exactly
 * one notice (a tool with side effects had started).
 */

const OWNER = 111;
const GROUP = -1001;
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function until(check: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('until: the condition never held');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const setup = () =>
  agentSetup(cleanups, {
    prefix: 'brain-crash-turn-',
    owner: OWNER,
    allowedChatIds: [OWNER, GROUP],
  });

const texts = (tg: FakeTelegram) => tg.callsOf('sendMessage').map((c) => String(c.params.text));
const textsTo = (tg: FakeTelegram, chat: number) =>
  tg
    .callsOf('sendMessage')
    .filter((c) => String(c.params.chat_id) === String(chat))
    .map((c) => String(c.params.text));

/** A brain file's messages with this body, read by the built CLI's own library. */
async function stored(db: string, body: string): Promise<number> {
  const { openBrain } = await import('../../../src/index.js');
  const brain = await openBrain({ dbPath: db, create: false });
  try {
    return brain.assistant
      .sessions()
      .flatMap((s) => brain.messages.thread({ thread_id: s.thread_id, limit: 1000 }).messages)
      .filter((m) => m.body === body).length;
  } finally {
    brain.close();
  }
}

describe('a turn cut short by SIGKILL', { timeout: 120_000 }, () => {
  it('is run again on restart when no tool with side effects had run: one reply, the message stored once', async () => {
    const { tg, model, start } = await setup();
    const first = start();
    model.script.push({ error: 'stall' }, { text: 'Answer after the restart.' });
    tg.message(OWNER, 'what is on today?');
    await until(() => model.requests.length === 1);
    await first.kill('SIGKILL');

    const second = start();
    await tg.waitFor('sendMessage', 1);
    await until(() => model.requests.length === 2);
    expect(texts(tg)).toEqual(['Answer after the restart.']);
    const asked = JSON.stringify(model.requests[1]!.body.messages);
    expect(asked.split('what is on today?')).toHaveLength(2);
    await second.kill('SIGTERM');
    expect(texts(tg)).toHaveLength(1);
  });

  it('is told about on restart when a tool with side effects had started: one notice, no new model call', async () => {
    const { tg, model, start } = await setup();
    const first = start();
    model.script.push(
      { toolUses: [{ name: 'save_memory', input: { content: 'Ann likes tea' } }] },
      { error: 'stall' },
    );
    tg.message(OWNER, 'remember that I like tea');
    await until(() => model.requests.length === 2);
    await first.kill('SIGKILL');

    const second = start();
    await tg.waitFor('sendMessage', 1);
    expect(texts(tg)).toHaveLength(1);
    expect(texts(tg)[0]).toMatch(/interrupted .*"remember that I like tea".*save_memory/);
    await second.kill('SIGTERM');
    expect(model.requests).toHaveLength(2);
    expect(texts(tg)).toHaveLength(1);
  });

  it('answers a message that waited behind the cut-short turn: one reply to both, each stored once', async () => {
    const { tg, model, db, start } = await setup();
    const first = start();
    model.script.push({ error: 'stall' }, { text: 'Both answered.' });
    tg.message(OWNER, 'first question');
    await until(() => model.requests.length === 1);
    // Queued behind the running turn: Telegram is told it was handled, the brain holds it.
    tg.message(OWNER, 'second question');
    await until(() => tg.callsOf('getUpdates').length >= 3);
    await first.kill('SIGKILL');

    const second = start();
    await tg.waitFor('sendMessage', 1);
    await second.kill('SIGTERM');
    expect(texts(tg)).toEqual(['Both answered.']);
    expect(model.requests).toHaveLength(2);
    const asked = JSON.stringify(model.requests[1]!.body.messages);
    expect(asked).toContain('first question');
    expect(asked).toContain('second question');
    expect(await stored(db, 'second question')).toBe(1);
    expect(await stored(db, 'first question')).toBe(1);
  });

  it('answers a group message cut short in the group it came from, not to the owner', async () => {
    const { tg, model, start } = await setup();
    const first = start();
    model.script.push({ error: 'stall' }, { text: 'Group answer.' });
    tg.push({
      message: {
        message_id: 5,
        date: 1,
        chat: { id: GROUP, type: 'supergroup', title: 'g' },
        from: { id: 222, is_bot: false, first_name: 'Bob' },
        text: '@brain_test_bot when is the meeting?',
      },
    });
    await until(() => model.requests.length === 1);
    await first.kill('SIGKILL');

    const second = start();
    await tg.waitFor('sendMessage', 1);
    await second.kill('SIGTERM');
    expect(textsTo(tg, GROUP)).toEqual(['Group answer.']);
    expect(textsTo(tg, OWNER)).toEqual([]);
    // Still the stranger's turn: the owner's context is not in it.
    expect(JSON.stringify(model.requests[1]!.body.messages)).toContain('when is the meeting?');
  });

  it('says which step had finished when the cut came after a tool with side effects returned', async () => {
    const { tg, model, start } = await setup();
    const first = start();
    model.script.push(
      { toolUses: [{ name: 'save_memory', input: { content: 'Ann likes green tea' } }] },
      { error: 'stall' },
    );
    tg.message(OWNER, 'note my tea');
    await until(() => model.requests.length === 2);
    await first.kill('SIGKILL');

    const second = start();
    await tg.waitFor('sendMessage', 1);
    await second.kill('SIGTERM');
    expect(texts(tg)).toHaveLength(1);
    expect(texts(tg)[0]).toMatch(/"note my tea", after save_memory had finished/);
    expect(model.requests).toHaveLength(2);
  });

  it('tells, once, of a message whose re-run was cut short too, and does not run it a third time', async () => {
    const { tg, model, start } = await setup();
    const first = start();
    model.script.push({ error: 'stall' }, { error: 'stall' });
    tg.message(OWNER, 'plan my week');
    await until(() => model.requests.length === 1);
    await first.kill('SIGKILL');

    const second = start();
    await until(() => model.requests.length === 2);
    await second.kill('SIGKILL');

    const third = start();
    await tg.waitFor('sendMessage', 1);
    await third.kill('SIGTERM');
    expect(texts(tg)).toHaveLength(1);
    expect(texts(tg)[0]).toMatch(/interrupted twice .*"plan my week", so I have not tried again/);
    expect(model.requests).toHaveLength(2);

    // Told once: a fourth start says nothing more.
    const fourth = start();
    await tg.waitFor('getUpdates', tg.callsOf('getUpdates').length + 2);
    await fourth.kill('SIGTERM');
    expect(texts(tg)).toHaveLength(1);
    expect(model.requests).toHaveLength(2);
  });
});
