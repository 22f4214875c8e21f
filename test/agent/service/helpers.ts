import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAssistantConfig, type AssistantConfig } from '../../../agent/config.js';
import type { Log, LogLevel } from '../../../agent/log.js';
import {
  createServiceHost,
  type RunningServiceHost,
  type ServiceHostOptions,
} from '../../../agent/service/host.js';
import type { Channel } from '../../../agent/contracts.js';
import { systemClock, type Clock } from '../../../src/index.js';
import { tempBrain, type TempBrain } from '../../helpers.js';
import { startFakeAnthropic, type FakeAnthropic } from '../../fakes/anthropic.js';

/**
 * A real service host on a temp brain, its assistant the real one talking to the fake Anthropic
 * server. For the channels', scheduler's and MCP client's tests too:
 *
 *   const s = await serviceFixture({ file: { owner: { name: 'ann', telegram: 42 } } });
 *   s.host.setComponents([channel]); await channel.start(s.host);
 *   s.fake.script.push({ text: 'hello' });
 *   … assert on s.fake.requests, s.t.brain, s.logs …
 *   await s.close();
 */
export interface ServiceFixture {
  t: TempBrain;
  fake: FakeAnthropic;
  config: AssistantConfig;
  /** The config file (JSON) the config was loaded from: rewrite it to test live reload. */
  configPath: string;
  host: RunningServiceHost;
  /** Every log line as `level event {fields}`. */
  logs: Array<{ level: LogLevel; event: string; fields: Record<string, unknown> }>;
  log: Log;
  close(): Promise<void>;
}

export const TEST_ENV = { ANTHROPIC_API_KEY: 'sk-test-secret-key' };

/** The assistant config file body for the fake model, with `file` merged over it. */
export function configFileBody(
  fakeBaseUrl: string,
  workspace: string,
  file: Record<string, unknown> = {},
) {
  return {
    agent: 'assistant',
    owner: 'ann',
    workspace,
    models: { endpoints: [{ provider: 'anthropic', model: 'claude-fake', baseUrl: fakeBaseUrl }] },
    ...file,
  };
}

export async function serviceFixture(
  options: {
    file?: Record<string, unknown>;
    clock?: Clock;
    host?: Partial<ServiceHostOptions>;
    channels?: Channel[];
  } = {},
): Promise<ServiceFixture> {
  const t = await tempBrain();
  const fake = await startFakeAnthropic();
  const configPath = join(t.dir, 'assistant.json');
  writeFileSync(configPath, JSON.stringify(configFileBody(fake.baseUrl, t.dir, options.file)));
  const config = loadAssistantConfig({ file: configPath, env: TEST_ENV });
  const logs: ServiceFixture['logs'] = [];
  const log: Log = (level, event, fields = {}) => void logs.push({ level, event, fields });
  const host = createServiceHost({
    brain: t.brain,
    config,
    clock: options.clock ?? systemClock,
    log,
    components: options.channels ?? [],
    ...options.host,
  });
  return {
    t,
    fake,
    config,
    configPath,
    host,
    logs,
    log,
    async close() {
      await host.close();
      await fake.close();
      t.cleanup();
    },
  };
}

/** A channel that records what it is asked to send: for deliver() and relays. */
export function recordingChannel(channel: 'telegram' | 'discord' = 'telegram') {
  const sent: Array<{ chatId: string; text: string }> = [];
  let started = false;
  const component: Channel & { sent: typeof sent; readonly started: boolean } = {
    name: channel,
    channel,
    sent,
    get started() {
      return started;
    },
    async start() {
      started = true;
    },
    async stop() {
      started = false;
    },
    async notify(chatId, text) {
      sent.push({ chatId, text });
    },
  };
  return component;
}
