import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAssistantConfig, type AssistantConfig } from '../../../../agent/config.js';
import {
  createTelegramChannel,
  type TelegramChannelOptions,
} from '../../../../agent/channels/telegram/bot.js';
import type { TelegramConfig } from '../../../../agent/channels/telegram/config.js';
import { streamLog } from '../../../../agent/log.js';
import { createServiceHost, type RunningServiceHost } from '../../../../agent/service/host.js';
import { systemClock } from '../../../../src/index.js';
import { tempBrain, type TempBrain } from '../../../helpers.js';
import { startFakeAnthropic, type FakeAnthropic } from '../../../fakes/anthropic.js';
import { startFakeTelegram, type FakeTelegram } from '../../../fakes/telegram.js';

export const OWNER_ID = 111;

export interface TelegramFixture {
  t: TempBrain;
  tg: FakeTelegram;
  model: FakeAnthropic;
  config: AssistantConfig;
  host: RunningServiceHost;
  channel: ReturnType<typeof createTelegramChannel>;
  /** Every log line, all levels. */
  lines: string[];
  workspace: string;
  close(): Promise<void>;
}

/** A temp brain, the fake Bot API and the fake Anthropic, the channel started on them. */
export async function telegramFixture(
  options: {
    telegram?: Partial<Omit<TelegramConfig, 'token'>>;
    channel?: TelegramChannelOptions;
    file?: Record<string, unknown>;
    beforeStart?: (tg: FakeTelegram) => void;
  } = {},
): Promise<TelegramFixture> {
  const t = await tempBrain();
  const tg = await startFakeTelegram();
  const model = await startFakeAnthropic();
  const workspace = join(t.dir, 'ws');
  mkdirSync(workspace, { recursive: true });
  const file = join(t.dir, 'assistant.json');
  writeFileSync(
    file,
    JSON.stringify({
      agent: 'assistant',
      owner: { name: 'ann', telegram: OWNER_ID },
      workspace,
      models: {
        endpoints: [{ provider: 'anthropic', model: 'claude-fake', baseUrl: model.baseUrl }],
      },
      telegram: { allowedChatIds: [OWNER_ID], apiRoot: tg.apiRoot, ...options.telegram },
      ...options.file,
    }),
  );
  const config = loadAssistantConfig({
    file,
    env: { ANTHROPIC_API_KEY: 'sk-test', TELEGRAM_BOT_TOKEN: tg.token, HOME: t.dir },
  });
  const lines: string[] = [];
  const log = streamLog((line) => void lines.push(line), 'debug');
  const host = createServiceHost({ brain: t.brain, config, clock: systemClock, log });
  const channel = createTelegramChannel(config.telegram!, options.channel);
  host.setComponents([channel]);
  options.beforeStart?.(tg);
  await channel.start(host);
  return {
    t,
    tg,
    model,
    config,
    host,
    channel,
    lines,
    workspace,
    async close() {
      await channel.stop();
      await host.close();
      await tg.close();
      await model.close();
      t.cleanup();
    },
  };
}

/** The texts the bot sent to a chat, in order. */
export const sentTexts = (tg: FakeTelegram, chatId = OWNER_ID) =>
  tg
    .callsOf('sendMessage')
    .filter((c) => Number(c.params.chat_id) === chatId)
    .map((c) => String(c.params.text));
