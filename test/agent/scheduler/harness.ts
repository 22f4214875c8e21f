import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createAssistant } from '../../../agent/chat.js';
import { loadAssistantConfig, type AssistantConfig } from '../../../agent/config.js';
import type { Log } from '../../../agent/log.js';
import type { TurnResult } from '../../../agent/loop.js';
import type {
  ChannelTarget,
  QueuedTurn,
  ServiceComponent,
  ServiceHost,
  TurnRequest,
} from '../../../agent/service/types.js';
import { openBrain, type Brain } from '../../../src/index.js';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic-server.js';

/**
 * One service instance for the scheduler's tests: a brain file, the real createAssistant talking
 * to the fake Anthropic server, and a host whose lane runs one turn at a time and whose deliveries
 * are recorded (a recording channel). Instances made on the same folder share the brain file, as
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

export function startInstance(options: {
  dir: string;
  config: AssistantConfig;
  clock?: () => Date;
}): Instance {
  const brain = openBrain({ dbPath: join(options.dir, 'brain.db') });
  const clock = options.clock ?? (() => new Date());
  const logs: string[] = [];
  const log: Log = (level, event, fields = {}) =>
    void logs.push(`${level} ${event} ${JSON.stringify(fields)}`);
  let config = options.config;
  const components: ServiceComponent[] = [];
  const assistant = createAssistant({
    brain,
    config,
    clock,
    log,
    moreTools: (session) => components.flatMap((c) => c.tools?.(session) ?? []),
  });
  const deliveries: Delivery[] = [];
  const requests: TurnRequest[] = [];
  const busy = new Map<string, number>();
  let lane: Promise<unknown> = Promise.resolve();
  const host: ServiceHost = {
    brain,
    clock,
    log,
    config: () => config,
    enqueue(request) {
      requests.push(request);
      const controller = new AbortController();
      busy.set(request.session, (busy.get(request.session) ?? 0) + 1);
      const done: Promise<TurnResult> = lane.then(() =>
        assistant.turn(request.session, request.text, request.io, {
          signal: controller.signal,
          source: request.source,
          unattended: request.unattended,
        }),
      );
      const settle = () => busy.set(request.session, (busy.get(request.session) ?? 1) - 1);
      lane = done.then(settle, settle);
      const queued: QueuedTurn = { done, cancel: (reason) => controller.abort(new Error(reason)) };
      return queued;
    },
    cancelSession: () => false,
    busy: (session) => (busy.get(session) ?? 0) > 0,
    ownerSession: () => 'chat/default',
    isOwner: () => true,
    noteOwnerTarget: () => {},
    async deliver(text, target) {
      deliveries.push({ text, target });
      return true;
    },
  };
  return {
    brain,
    host,
    get config() {
      return config;
    },
    set config(next: AssistantConfig) {
      config = next;
    },
    deliveries,
    logs,
    requests,
    async start(...more) {
      for (const c of more) {
        components.push(c);
        await c.start(host);
      }
    },
    async stop() {
      for (const c of components.reverse()) await c.stop();
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
