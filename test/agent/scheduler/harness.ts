import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAssistantConfig, type AssistantConfig } from '../../../agent/config.js';
import type { Log } from '../../../agent/log.js';
import { createServiceHost, type RunningServiceHost } from '../../../agent/service/host.js';
import type {
  ChannelTarget,
  ServiceComponent,
  ServiceHost,
  TurnRequest,
} from '../../../agent/contracts.js';
import { recordingChannel } from '../service/helpers.js';
import { openBrain, type Brain } from '../../../src/index.js';
import { startFakeAnthropic, type FakeAnthropic } from '../../fakes/anthropic.js';

/**
 * One service instance for the scheduler's tests: a brain file, agent-service's real host and
 * lane, the real createAssistant talking to the fake Anthropic server, and recording Telegram and
 * Discord channels (test/agent/service/helpers.ts) whose deliveries are kept in order. Instances made on the same folder share the brain file, as
 * a restarted service would.
 */

export interface Delivery {
  text: string;
  target: ChannelTarget | undefined;
}

export interface Instance {
  brain: Brain;
  host: ServiceHost;
  config: AssistantConfig;
  deliveries: Delivery[];
  logs: string[];
  requests: TurnRequest[];
  start(...components: ServiceComponent[]): Promise<void>;
  /** Stop the components and close the brain. */
  stop(): Promise<void>;
}

export async function fakeModel(): Promise<FakeAnthropic> {
  return startFakeAnthropic();
}

/** Write the config file (the model pointed at the fake) and load it as the service would. */
export function writeConfig(
  dir: string,
  fake: FakeAnthropic,
  extra: Record<string, unknown>,
  env: Record<string, string> = {},
): AssistantConfig {
  const file = join(dir, 'assistant.json');
  writeFileSync(
    file,
    JSON.stringify({
      agent: 'assistant',
      owner: 'ann',
      workspace: dir,
      models: {
        endpoints: [{ provider: 'anthropic', model: 'claude-fake', baseUrl: fake.baseUrl }],
      },
      ...extra,
    }),
  );
  return loadAssistantConfig({ file, env: { ANTHROPIC_API_KEY: 'sk-test', ...env } });
}

export async function startInstance(options: {
  dir: string;
  config: AssistantConfig;
  clock?: () => Date;
}): Promise<Instance> {
  const brain = await openBrain({ dbPath: join(options.dir, 'brain.db') });
  const clock = options.clock ?? (() => new Date());
  const logs: string[] = [];
  const log: Log = (level, event, fields = {}) =>
    void logs.push(`${level} ${event} ${JSON.stringify(fields)}`);
  const deliveries: Delivery[] = [];
  const requests: TurnRequest[] = [];
  // Recording channels: what deliver() hands them, with the target it chose.
  const channels = (['telegram', 'discord'] as const).map((name) => {
    const channel = recordingChannel(name);
    const notify = channel.notify.bind(channel);
    channel.notify = async (chatId, text) => {
      deliveries.push({ text, target: { channel: name, chatId } });
      await notify(chatId, text);
    };
    return channel;
  });
  const real = createServiceHost({ brain, config: options.config, clock, log });
  const components: ServiceComponent[] = [...channels];
  real.setComponents(components);
  // The owner last spoke on Telegram chat 7: the default delivery target.
  real.noteOwnerTarget({ channel: 'telegram', chatId: '7' });
  const host: RunningServiceHost = {
    ...real,
    enqueue(request) {
      requests.push(request);
      return real.enqueue(request);
    },
  };
  return {
    brain,
    host,
    get config() {
      return real.config();
    },
    set config(next: AssistantConfig) {
      real.setConfig(next);
    },
    deliveries,
    logs,
    requests,
    async start(...more) {
      for (const c of more) {
        components.push(c);
        real.setComponents([...components]);
        await c.start(host);
      }
    },
    async stop() {
      for (const c of components.slice(channels.length).reverse()) await c.stop();
      await real.close();
      brain.close();
    },
  };
}

/**
 * Let real I/O (the fake model's HTTP) proceed while fake timers stand still, until `check`
 * holds; fails after `ms` of real time. Not a sleep: it yields to the event loop and looks again.
 */
export async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!check()) {
    if (performance.now() > deadline) throw new Error('until: the condition never held');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Fake the clock and timers (Date included: croner reads it), not setImmediate or I/O. */
export const FAKE_TIMERS = {
  toFake: ['Date', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] as Array<
    'Date' | 'setTimeout' | 'clearTimeout' | 'setInterval' | 'clearInterval'
  >,
};
