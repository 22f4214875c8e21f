import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTelegramChannel } from '../../../agent/channels/telegram/bot.js';
import { loadAssistantConfig } from '../../../agent/config.js';
import { streamLog } from '../../../agent/log.js';
import { createReminders } from '../../../agent/scheduler/reminders.js';
import { createServiceHost } from '../../../agent/service/host.js';
import { openBrain } from '../../../src/index.js';
import { tempDir } from '../../helpers.js';
import { startFakeAnthropic, type FakeAnthropic } from '../../fakes/anthropic.js';
import { startFakeTelegram, type FakeTelegram } from '../../fakes/telegram.js';
import { until } from './harness.js';

/**
 * End to end: the owner asks on Telegram for a reminder, the real model loop calls set_reminder
 * (scripted on the fake Anthropic server), the service stops; it starts again after the reminder's
 * time (a clock an hour on), and the reminder reaches the owner's Telegram chat through the real
 * Telegram channel and the fake Bot API, marked late, once.
 */

const OWNER = 111;
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function service(dir: string, tg: FakeTelegram, model: FakeAnthropic, offsetMs: number) {
  const file = join(dir, 'assistant.json');
  const workspace = join(dir, 'ws');
  mkdirSync(workspace, { recursive: true });
  writeFileSync(
    file,
    JSON.stringify({
      agent: 'assistant',
      owner: { name: 'ann', telegram: OWNER },
      workspace,
      timeZone: 'Europe/Berlin',
      models: {
        endpoints: [{ provider: 'anthropic', model: 'claude-fake', baseUrl: model.baseUrl }],
      },
      telegram: { allowedChatIds: [OWNER], apiRoot: tg.apiRoot },
    }),
  );
  const config = loadAssistantConfig({
    file,
    env: { ANTHROPIC_API_KEY: 'sk-test', TELEGRAM_BOT_TOKEN: tg.token, HOME: dir },
  });
  const brain = await openBrain({ dbPath: join(dir, 'brain.db') });
  const lines: string[] = [];
  const log = streamLog((line) => void lines.push(line), 'debug');
  const clock = () => new Date(Date.now() + offsetMs);
  const host = createServiceHost({ brain, config, clock, log });
  const channel = createTelegramChannel(config.telegram!);
  const reminders = createReminders(config);
  host.setComponents([channel, reminders]);
  await channel.start(host);
  await reminders.start(host);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await reminders.stop();
    await channel.stop();
    await host.close();
    brain.close();
  };
  cleanups.push(stop);
  return { brain, lines, stop };
}

describe('a reminder across a restart, through Telegram', { timeout: 60_000 }, () => {
  it('is set through the model, and after a restart past its time is delivered to the owner’s chat once, marked late', async () => {
    const { dir, cleanup } = tempDir('brain-reminder-tg-');
    cleanups.push(cleanup);
    const tg = await startFakeTelegram();
    cleanups.push(() => tg.close());
    const model = await startFakeAnthropic();
    cleanups.push(() => model.close());

    const first = await service(dir, tg, model, 0);
    model.script.push(
      { toolUses: [{ name: 'set_reminder', input: { when: 'in 20 minutes', text: 'Stretch' } }] },
      { text: 'I will remind you in 20 minutes.' },
    );
    tg.message(OWNER, 'remind me in 20 minutes to stretch');
    await tg.waitFor('sendMessage', 1);
    expect(String(tg.callsOf('sendMessage')[0]!.params.text)).toContain('remind you in 20 minutes');
    expect(first.brain.assistant.reminders()).toMatchObject([
      { text: 'Stretch', status: 'pending' },
    ]);
    await first.stop();

    const second = await service(dir, tg, model, 3_600_000);
    await until(() => tg.callsOf('sendMessage').length === 2);
    const sent = tg.callsOf('sendMessage')[1]!;
    expect(Number(sent.params.chat_id)).toBe(OWNER);
    expect(String(sent.params.text)).toMatch(/^Reminder: Stretch \(late: it was due /);
    expect(second.brain.assistant.reminders({ all: true })).toMatchObject([
      { status: 'done', late: true },
    ]);
    expect(second.lines.join('')).not.toContain('Stretch');
    expect(second.lines.join('')).not.toContain(tg.token);
    await second.stop();

    const third = await service(dir, tg, model, 3_700_000);
    await tg.waitFor('getUpdates', 1);
    expect(tg.callsOf('sendMessage')).toHaveLength(2);
    await third.stop();
  });
});
