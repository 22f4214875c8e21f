import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { runRepl } from '../../../../agent/chat.js';
import { createAssistant } from '../../../../agent/assistant.js';
import { startChatComponents } from '../../../../agent/chat-host.js';
import { createReminders } from '../../../../agent/scheduler/reminders.js';
import { systemClock } from '../../../../src/index.js';
import { OWNER_ID, sentTexts, telegramFixture, type TelegramFixture } from './helpers.js';

/** One assistant everywhere: what `brain chat` sets, the service delivers on Telegram. */

let f: TelegramFixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

describe('a reminder set in brain chat', { timeout: 30_000 }, () => {
  it('is delivered by the service to the owner on Telegram, once', async () => {
    f = await telegramFixture({ file: { reminders: { deliverTo: `telegram:${OWNER_ID}` } } });
    const { brain } = f.host;
    const assistant = createAssistant({
      brain,
      config: f.config,
      clock: systemClock,
      log: () => {},
    });
    const components = await startChatComponents({
      brain,
      config: f.config,
      clock: systemClock,
      log: () => {},
      assistant,
    });
    f.model.script.push(
      { toolUses: [{ name: 'set_reminder', input: { when: 'in 2 minutes', text: 'stretch' } }] },
      { text: 'Set.' },
    );
    const input = new PassThrough();
    const ended = runRepl({
      assistant,
      brain,
      session: 'chat/default',
      streams: { input, output: new PassThrough(), note: () => {} },
      tools: components.tools,
    });
    input.end('remind me to stretch in 2 minutes\n');
    await ended;
    await components.stop();
    expect(brain.assistant.reminders({ limit: 10 }).map((r) => r.text)).toEqual(['stretch']);

    // The service looks just after the due time: the reminder fires at its start, on time.
    const later = { ...f.host, clock: () => new Date(Date.now() + 2 * 60_000 + 5_000) };
    const reminders = createReminders(f.config);
    await reminders.start(later);
    await f.tg.waitFor('sendMessage', 1);
    await reminders.stop();
    expect(sentTexts(f.tg)).toEqual(['Reminder: stretch']);
    expect(brain.assistant.reminders({ limit: 10 })).toEqual([]);
  });
});
