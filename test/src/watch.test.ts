import { connectionOf } from '../../src/brain.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { watchBrain, type ArrivedMessage, type WatchTimers } from '../../src/index.js';
import { tempBrain, type TempBrain } from '../helpers.js';

/** Timers that only fire when told: tick() runs the interval callback once. */
function manualTimers() {
  let fn: (() => void) | undefined;
  let started = 0;
  const timers: WatchTimers = {
    setInterval(f) {
      fn = f;
      started++;
      return started;
    },
    clearInterval() {
      fn = undefined;
    },
  };
  return {
    timers,
    running: () => fn !== undefined,
    tick: () => fn?.(),
  };
}

let t: TempBrain;
beforeEach(async () => {
  t = await tempBrain();
});
afterEach(() => t.cleanup());

describe('watchBrain', () => {
  it('polls only while someone listens', () => {
    const clock = manualTimers();
    const watcher = watchBrain(t.brain, { timers: clock.timers });
    expect(clock.running()).toBe(false);
    const stop = watcher.onMessages(() => {});
    expect(clock.running()).toBe(true);
    stop();
    expect(clock.running()).toBe(false);
  });

  it('sees a message another connection (another process) commits, with its recipients', async () => {
    t.brain.touchAgent('bob');
    t.brain.touchAgent('carol');
    const other = await t.reopen();
    const clock = manualTimers();
    const seen: ArrivedMessage[] = [];
    watchBrain(t.brain, { timers: clock.timers }).onMessages((batch) => seen.push(...batch));

    const direct = other.messages.send({ from: 'alice', to: 'bob', body: 'for bob' });
    const broadcast = other.messages.send({ from: 'alice', body: 'for everyone' });
    clock.tick();

    expect(seen).toEqual([
      { id: direct.id, thread_id: direct.thread_id, from: 'alice', recipients: ['bob'] },
      {
        id: broadcast.id,
        thread_id: broadcast.thread_id,
        from: 'alice',
        recipients: expect.arrayContaining(['bob', 'carol']),
      },
    ]);
    expect(seen[1]!.recipients).toHaveLength(2);
  });

  it("sees its own connection's writes too (one `brain serve` shares one connection)", () => {
    const clock = manualTimers();
    const seen: string[] = [];
    watchBrain(t.brain, { timers: clock.timers }).onMessages((b) =>
      seen.push(...b.map((m) => m.id)),
    );
    const sent = t.brain.messages.send({ from: 'alice', to: 'bob', body: 'same connection' });
    clock.tick();
    expect(seen).toEqual([sent.id]);
  });

  it('reports nothing when nothing changed, and each message once', async () => {
    const clock = manualTimers();
    let calls = 0;
    watchBrain(t.brain, { timers: clock.timers }).onMessages(() => calls++);
    clock.tick();
    expect(calls).toBe(0);
    (await t.reopen()).messages.send({ from: 'alice', to: 'bob', body: 'once' });
    clock.tick();
    clock.tick();
    expect(calls).toBe(1);
  });

  it('ignores messages from before the first listener', async () => {
    t.brain.messages.send({ from: 'alice', to: 'bob', body: 'old news' });
    const clock = manualTimers();
    const seen: string[] = [];
    watchBrain(t.brain, { timers: clock.timers }).onMessages((b) =>
      seen.push(...b.map((m) => m.id)),
    );
    const fresh = (await t.reopen()).messages.send({ from: 'alice', to: 'bob', body: 'news' });
    clock.tick();
    expect(seen).toEqual([fresh.id]);
  });

  it('delivers a burst larger than one batch completely and in order', async () => {
    const clock = manualTimers();
    const seen: string[] = [];
    watchBrain(t.brain, { timers: clock.timers }).onMessages((b) =>
      seen.push(...b.map((m) => m.id)),
    );
    const other = await t.reopen();
    const ids = connectionOf(other)
      .transaction(() =>
        Array.from(
          { length: 1203 },
          (_, i) => other.messages.send({ from: 'a', to: 'b', body: `m${i}` }).id,
        ),
      )
      .immediate();
    clock.tick();
    expect(seen).toEqual(ids);
  });

  it('never writes: a read-only open can be watched', async () => {
    const reader = await t.reopen({ readonly: true });
    const clock = manualTimers();
    const seen: string[] = [];
    watchBrain(reader, { timers: clock.timers }).onMessages((b) =>
      seen.push(...b.map((m) => m.id)),
    );
    const sent = t.brain.messages.send({ from: 'alice', to: 'bob', body: 'x' });
    clock.tick();
    expect(seen).toEqual([sent.id]);
  });
});
