import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createAssistant } from '../../../../agent/chat.js';
import { loadAssistantConfig, type AssistantConfig } from '../../../../agent/config.js';
import {
  createTelegramChannel,
  type TelegramChannelOptions,
} from '../../../../agent/channels/telegram/bot.js';
import type { TelegramConfig } from '../../../../agent/channels/telegram/config.js';
import { streamLog, type Log } from '../../../../agent/log.js';
import type { QueuedTurn, ServiceHost, TurnRequest } from '../../../../agent/service/types.js';
import { systemClock } from '../../../../src/index.js';
import { tempBrain, type TempBrain } from '../../../helpers.js';
import { startFakeAnthropic, type FakeAnthropic } from '../../fakes/anthropic-server.js';
import { startFakeTelegram, type FakeTelegram } from '../../fakes/telegram-server.js';

export const OWNER_ID = 111;

/**
 * A stand-in for agent-service's host until it lands: turns of one session run one after
 * another through the real createAssistant; cancelling aborts the running one.
 */
export function simpleHost(options: {
  t: TempBrain;
  config: AssistantConfig;
  log: Log;
  ownerTelegram?: number;
}): ServiceHost & { delivered: string[] } {
  const { t, config, log } = options;
  const assistant = createAssistant({ brain: t.brain, config, clock: systemClock, log });
  const tails = new Map<string, Promise<unknown>>();
  const running = new Map<string, Set<AbortController>>();
  return {
    brain: t.brain,
    clock: systemClock,
    log,
    delivered: [],
    config: () => config,
    enqueue(request: TurnRequest): QueuedTurn {
      const controller = new AbortController();
      const set = running.get(request.session) ?? new Set();
      running.set(request.session, set);
      set.add(controller);
      const done = (tails.get(request.session) ?? Promise.resolve())
        .catch(() => undefined)
        .then(() => {
          if (controller.signal.aborted) throw new Error('cancelled before it started');
          return assistant.turn(request.session, request.text, request.io, {
            signal: controller.signal,
            source: request.source,
            unattended: request.unattended,
          });
        })
        .finally(() => set.delete(controller));
      tails.set(request.session, done);
      return { done, cancel: (reason) => controller.abort(new Error(reason ?? 'cancelled')) };
    },
    cancelSession(session) {
      const set = running.get(session);
      if (!set || set.size === 0) return false;
      for (const c of set) c.abort(new Error('cancelled'));
      return true;
    },
    busy: (session) => (running.get(session)?.size ?? 0) > 0,
    ownerSession: () => 'owner',
    isOwner: ({ channel, userId }) =>
      channel === 'telegram' && userId === String(options.ownerTelegram ?? OWNER_ID),
    noteOwnerTarget: () => {},
    async deliver() {
      return false;
    },
  };
}

export interface TelegramFixture {
  t: TempBrain;
  tg: FakeTelegram;
  model: FakeAnthropic;
  config: AssistantConfig;
  host: ReturnType<typeof simpleHost>;
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
  const t = tempBrain();
  const tg = await startFakeTelegram();
  const model = await startFakeAnthropic();
  const workspace = join(t.dir, 'ws');
  mkdirSync(workspace, { recursive: true });
  const file = join(t.dir, 'assistant.json');
  writeFileSync(
    file,
    JSON.stringify({
      agent: 'assistant',
      owner: 'ann',
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
  const host = simpleHost({ t, config, log });
  const channel = createTelegramChannel(config.telegram!, options.channel);
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
