import { afterEach, describe, expect, it } from 'vitest';
import { createServiceHost } from '../../../agent/service/host.js';
import { TurnCancelledError } from '../../../agent/contracts.js';
import type { TurnRequest } from '../../../agent/contracts.js';
import type { TurnResult } from '../../../agent/loop.js';
import { systemClock } from '../../../src/index.js';
import { recordingChannel, serviceFixture, type ServiceFixture } from './helpers.js';

const fixtures: ServiceFixture[] = [];
afterEach(async () => {
  for (const f of fixtures.splice(0)) await f.close();
});
async function fixture(...args: Parameters<typeof serviceFixture>) {
  const f = await serviceFixture(...args);
  fixtures.push(f);
  return f;
}

const ownerTurn = (text: string, session = 'chat/default'): TurnRequest => ({
  session,
  text,
  source: 'channel',
  priority: 'owner',
  unattended: false,
  io: { onText() {} },
});

describe('the service host', () => {
  it('runs a queued turn through the real assistant and stores it in the session thread', async () => {
    const s = await fixture();
    s.fake.script.push({ text: 'Hello from the model.' });
    const result = await s.host.enqueue(ownerTurn('hi there', 'telegram/7')).done;
    expect(result.reply).toBe('Hello from the model.');
    const thread = s.t.brain.assistant.sessionMessages({ thread_id: result.threadId });
    expect(thread.map((m) => m.body)).toEqual(['hi there', 'Hello from the model.']);
    expect(s.host.busy('telegram/7')).toBe(false);
    expect(s.logs.map((l) => l.event)).toEqual(expect.arrayContaining(['lane.start', 'lane.done']));
  });

  it('gives the owner one session, the one brain chat uses by default', async () => {
    const s = await fixture();
    expect(s.host.ownerSession()).toBe('chat/default');
  });

  it('knows the owner by channel identity from owner: {name, telegram, discord}', async () => {
    const s = await fixture({
      file: { owner: { name: 'ann', telegram: 42, discord: '123456789012' } },
    });
    expect(s.host.config().owner).toBe('ann');
    expect(s.host.isOwner({ channel: 'telegram', userId: '42' })).toBe(true);
    expect(s.host.isOwner({ channel: 'telegram', userId: '43' })).toBe(false);
    expect(s.host.isOwner({ channel: 'discord', userId: '123456789012' })).toBe(true);
    expect(s.host.isOwner({ channel: 'discord', userId: '42' })).toBe(false);
  });

  it('knows no owner identity when owner is a plain name', async () => {
    const s = await fixture({ file: { owner: 'ann' } });
    expect(s.host.isOwner({ channel: 'telegram', userId: '42' })).toBe(false);
  });

  it('delivers to where the owner spoke last, and remembers it across a restart', async () => {
    const telegram = recordingChannel('telegram');
    const discord = recordingChannel('discord');
    const s = await fixture({ channels: [telegram, discord] });
    expect(await s.host.deliver('nobody to tell')).toBe(false);
    s.host.noteOwnerTarget({ channel: 'discord', chatId: '555' });
    expect(await s.host.deliver('reminder: water the plants')).toBe(true);
    expect(discord.sent).toEqual([{ chatId: '555', text: 'reminder: water the plants' }]);

    // A new host on another connection (a restart) finds the same target in the brain.
    const again = createServiceHost({
      brain: await s.t.reopen(),
      config: s.config,
      clock: systemClock,
      log: s.log,
      components: [telegram, discord],
    });
    expect(await again.deliver('still there')).toBe(true);
    expect(discord.sent.at(-1)).toEqual({ chatId: '555', text: 'still there' });
    expect(await again.deliver('to telegram', { channel: 'telegram', chatId: '9' })).toBe(true);
    expect(telegram.sent).toEqual([{ chatId: '9', text: 'to telegram' }]);
    // No component for the channel: nothing is sent.
    expect(await again.deliver('x', { channel: 'matrix', chatId: '1' })).toBe(false);
    await again.close();
  });

  it('cancels a running turn with cancelSession and refuses new turns once closed', async () => {
    const s = await fixture();
    s.fake.script.push({ error: 'stall' });
    const turn = s.host.enqueue(ownerTurn('wait forever'));
    await waitFor(() => s.fake.requests.length === 1);
    expect(s.host.busy('chat/default')).toBe(true);
    expect(s.host.cancelSession('chat/default')).toBe(true);
    const result: TurnResult | Error = await turn.done.catch((e: unknown) => e as Error);
    // The loop stores a cancelled turn (or the lane reports the cancellation): either way it ended.
    if (result instanceof Error) expect(result).toBeInstanceOf(TurnCancelledError);
    else expect(result.cancelled).toBe(true);
    await s.host.close();
    await expect(s.host.enqueue(ownerTurn('late')).done).rejects.toBeInstanceOf(TurnCancelledError);
  });
});

async function waitFor(check: () => boolean, ms = 10_000) {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setImmediate(r));
  }
}
