import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startService, type RunningService } from '../../../agent/service/service.js';
import type { ServiceComponent } from '../../../agent/contracts.js';
import type { AssistantConfig } from '../../../agent/config.js';
import { noteSideEffect } from '../../../agent/turn-effects.js';
import { systemClock } from '../../../src/index.js';
import {
  TEST_ENV,
  configFileBody,
  recordingChannel,
  serviceFixture,
  type ServiceFixture,
} from './helpers.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function start(
  f: ServiceFixture,
  components: ServiceComponent[],
  extra: Partial<Parameters<typeof startService>[0]> = {},
): Promise<RunningService> {
  const service = await startService({
    brain: f.t.brain,
    config: f.config,
    clock: systemClock,
    log: f.log,
    env: TEST_ENV,
    components,
    inbox: { intervalMs: 10 },
    ...extra,
  });
  cleanups.push(() => service.stop());
  return service;
}

async function until(check: () => boolean, ms = 20_000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('startService', { timeout: 60_000 }, () => {
  it('relays an exchange with another agent to the owner when relayToOwner is on', async () => {
    const f = await serviceFixture({ file: { relayToOwner: true } });
    cleanups.push(() => f.close());
    const telegram = recordingChannel('telegram');
    const service = await start(f, [telegram]);
    service.host.noteOwnerTarget({ channel: 'telegram', chatId: '42' });
    f.fake.script.push({ text: 'Deploy done.' });
    const sent = f.t.brain.messages.send({
      from: 'ci-bot',
      to: 'assistant',
      body: 'Please deploy.',
    });
    await until(() => telegram.sent.length === 1);
    expect(telegram.sent[0]!.chatId).toBe('42');
    expect(telegram.sent[0]!.text).toContain('Please deploy.');
    expect(telegram.sent[0]!.text).toContain('Deploy done.');
    const replies = f.t.brain.messages.thread({ thread_id: sent.thread_id }).messages;
    expect(replies.at(-1)).toMatchObject({ from: 'assistant', to: 'ci-bot', reply_to: sent.id });
    // At info, the log names the message but holds neither body.
    const info = JSON.stringify(f.logs.filter((l) => l.level === 'info'));
    expect(info).not.toContain('Please deploy.');
    expect(info).not.toContain('Deploy done.');
  });

  it('relays nothing when relayToOwner is off (the default)', async () => {
    const f = await serviceFixture();
    cleanups.push(() => f.close());
    const telegram = recordingChannel('telegram');
    const service = await start(f, [telegram]);
    f.t.brain.assistant.setOwnerTarget({ agent: 'assistant', channel: 'telegram', chat_id: '42' });
    const sent = f.t.brain.messages.send({ from: 'ci-bot', to: 'assistant', body: 'ping' });
    await until(
      () => f.t.brain.messages.thread({ thread_id: sent.thread_id }).messages.length === 2,
    );
    expect(telegram.sent).toEqual([]);
    // The turn's own messages (in its session thread, addressed to the assistant) start nothing.
    await new Promise((r) => setTimeout(r, 50));
    await service.host.lane.idle();
    expect(f.fake.requests).toHaveLength(1);
  });

  it('tells another agent its message was cut short after a side effect, instead of running it twice', async () => {
    const f = await serviceFixture();
    cleanups.push(() => f.close());
    const sent = f.t.brain.messages.send({
      from: 'ci-bot',
      to: 'assistant',
      body: 'Restart the runner.',
    });
    // What a crashed run left: the turn had started run_command for this message.
    f.t.brain.assistant.sessionInThread({
      name: `inbox/${sent.thread_id}`,
      agent: 'assistant',
      owner: 'ann',
      thread_id: sent.thread_id,
    });
    noteSideEffect(f.t.brain, `inbox/${sent.thread_id}`, { message: sent.id, tool: 'run_command' });
    await start(f, [recordingChannel('telegram')]);
    await until(
      () => f.t.brain.messages.thread({ thread_id: sent.thread_id }).messages.length === 2,
    );
    const notice = f.t.brain.messages.thread({ thread_id: sent.thread_id }).messages.at(-1)!;
    expect(notice).toMatchObject({ from: 'assistant', to: 'ci-bot', reply_to: sent.id });
    expect(notice.body).toMatch(
      /interrupted .*after starting run_command, which may not have finished/,
    );
    expect(f.fake.requests).toHaveLength(0);
    expect(f.t.brain.messages.peek({ agent: 'assistant' })).toEqual([]);
  });

  it('starts its components in order, logs ready, and stops them', async () => {
    const f = await serviceFixture();
    cleanups.push(() => f.close());
    const a = recordingChannel('telegram');
    const b = recordingChannel('discord');
    const service = await start(f, [a, b], { inbox: false });
    expect(a.started && b.started).toBe(true);
    expect(f.logs.find((l) => l.event === 'ready')?.fields.components).toEqual([
      'telegram',
      'discord',
    ]);
    await service.stop();
    expect(a.started || b.started).toBe(false);
  });
});

describe('live config reload', { timeout: 60_000 }, () => {
  it('applies a changed file that validates: host config, lane limit, each component reconfigured', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const f = await serviceFixture();
    cleanups.push(() => f.close());
    const seen: AssistantConfig[] = [];
    const component: ServiceComponent = {
      name: 'probe',
      async start() {},
      async stop() {},
      reconfigure: (c) => void seen.push(c),
    };
    const service = await start(f, [component], {
      inbox: false,
      watchConfig: true,
      debounceMs: 200,
    });
    writeFileSync(
      f.configPath,
      JSON.stringify(
        configFileBody(f.fake.baseUrl, f.t.dir, { relayToOwner: true, lane: { maxConcurrent: 3 } }),
      ),
    );
    // fs.watch reports the change (real I/O); the debounce runs on the fake clock.
    await vi.waitFor(() => expect(vi.getTimerCount()).toBeGreaterThan(0), { timeout: 10_000 });
    await vi.advanceTimersByTimeAsync(200);
    await vi.waitFor(() => expect(seen).toHaveLength(1));
    expect(seen[0]!.relayToOwner).toBe(true);
    expect(service.host.config().lane.maxConcurrent).toBe(3);
    expect(f.logs.some((l) => l.event === 'config.reloaded')).toBe(true);
  });

  it('refuses a changed file that does not validate, logs its key path, and keeps the running config', async () => {
    const f = await serviceFixture();
    cleanups.push(() => f.close());
    let reconfigured = 0;
    const component: ServiceComponent = {
      name: 'probe',
      async start() {},
      async stop() {},
      reconfigure: () => void reconfigured++,
    };
    const service = await start(f, [component], { inbox: false, watchConfig: false });
    writeFileSync(
      f.configPath,
      JSON.stringify(
        configFileBody(f.fake.baseUrl, f.t.dir, {
          relayToOwner: 'yes',
          lane: { maxConcurrent: 0 },
        }),
      ),
    );
    expect(await service.reload()).toBe(false);
    const refused = f.logs.find((l) => l.event === 'config.refused');
    expect(refused?.level).toBe('warn');
    expect(String(refused?.fields.error)).toMatch(/lane\.maxConcurrent: .*relayToOwner: /);
    expect(service.host.config()).toBe(f.config);
    expect(reconfigured).toBe(0);

    writeFileSync(
      f.configPath,
      JSON.stringify(configFileBody(f.fake.baseUrl, f.t.dir, { relayToOwner: true })),
    );
    expect(await service.reload()).toBe(true);
    expect(service.host.config().relayToOwner).toBe(true);
    expect(reconfigured).toBe(1);
  });
});
