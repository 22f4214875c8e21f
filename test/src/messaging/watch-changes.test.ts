import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { watchBrain, type BrainChanges, type WatchTimers } from '../../../src/index.js';
import { tempBrain, type TempBrain } from '../../helpers.js';

/** Timers that only fire when told. */
function manualTimers() {
  let fn: (() => void) | undefined;
  const timers: WatchTimers = {
    setInterval(f) {
      fn = f;
      return 1;
    },
    clearInterval() {
      fn = undefined;
    },
  };
  return { timers, running: () => fn !== undefined, tick: () => fn?.() };
}

let t: TempBrain;
beforeEach(async () => {
  t = await tempBrain();
});
afterEach(() => t.cleanup());

/** Everything one watcher reports, merged. */
function collect() {
  const all: BrainChanges = { messages: [], memories: [], receipts: [] };
  const calls: number[] = [];
  const fn = (c: BrainChanges) => {
    calls.push(1);
    all.messages.push(...c.messages);
    all.memories.push(...c.memories);
    all.receipts.push(...c.receipts);
  };
  return { all, calls, fn };
}

describe('watchBrain: changes beyond messages', () => {
  it('reports new memories and atoms written by another connection, with their source message and its thread', async () => {
    const other = await t.reopen();
    const m = other.messages.send({ from: 'nova', to: 'helios', body: 'disk full' });
    const clock = manualTimers();
    const seen = collect();
    watchBrain(t.brain, { timers: clock.timers }).onChanges(seen.fn);

    const stm = other.knowledge.remember({
      agent: 'helios',
      content: 'disks fill',
      source_message_id: m.id,
    });
    const loose = other.knowledge.remember({ agent: 'helios', content: 'no source' });
    const atom = other.knowledge.createAtom({
      agent: 'helios',
      subject: 'disk',
      action: 'fill',
      outcome: 'full',
      source_message_id: m.id,
    });
    clock.tick();

    expect(seen.all.messages).toEqual([]);
    expect(seen.all.memories).toEqual([
      { type: 'stm', id: stm.id, agent: 'helios', source_message_id: m.id, thread_id: m.thread_id },
      { type: 'stm', id: loose.id, agent: 'helios', source_message_id: null, thread_id: null },
      {
        type: 'atom',
        id: atom.id,
        agent: 'helios',
        source_message_id: m.id,
        thread_id: m.thread_id,
      },
    ]);
  });

  it('reports a read and an ack once each, naming the message, its thread and the agent', async () => {
    const other = await t.reopen();
    const m = other.messages.send({ from: 'nova', to: 'helios', body: 'please ack' });
    const clock = manualTimers();
    const seen = collect();
    watchBrain(t.brain, { timers: clock.timers }).onChanges(seen.fn);

    other.messages.markRead({ message_id: m.id, agent: 'helios' });
    other.messages.markRead({ message_id: m.id, agent: 'helios' }); // already read: no second receipt
    clock.tick();
    other.messages.ack({ message_id: m.id, agent: 'helios', body: 'done' });
    clock.tick();
    clock.tick(); // nothing new: nothing reported

    const where = { message_id: m.id, thread_id: m.thread_id, agent: 'helios' };
    expect(seen.all.receipts.filter((r) => r.kind === 'read')).toEqual([
      { kind: 'read', ...where },
    ]);
    expect(seen.all.receipts.filter((r) => r.kind === 'ack')).toEqual([{ kind: 'ack', ...where }]);
    expect(seen.calls.length).toBe(2);
  });

  it('starts from now: what existed before the first listener is not reported', () => {
    const m = t.brain.messages.send({ from: 'nova', to: 'helios', body: 'old' });
    t.brain.knowledge.remember({ agent: 'helios', content: 'old memory', source_message_id: m.id });
    t.brain.messages.markRead({ message_id: m.id, agent: 'helios' });
    const clock = manualTimers();
    const seen = collect();
    const watcher = watchBrain(t.brain, { timers: clock.timers });
    watcher.onMessages(() => {}); // messages followed first; the others start when asked for
    t.brain.knowledge.remember({ agent: 'helios', content: 'before onChanges' });
    watcher.onChanges(seen.fn);
    clock.tick();
    expect(seen.all).toEqual({ messages: [], memories: [], receipts: [] });
    const fresh = t.brain.knowledge.remember({ agent: 'helios', content: 'new' });
    clock.tick();
    expect(seen.all.memories.map((x) => x.id)).toEqual([fresh.id]);
  });

  it('tells message listeners about messages only, as before', async () => {
    const other = await t.reopen();
    const clock = manualTimers();
    const batches: string[][] = [];
    watchBrain(t.brain, { timers: clock.timers }).onMessages((b) =>
      batches.push(b.map((m) => m.id)),
    );
    const m = other.messages.send({ from: 'nova', to: 'helios', body: 'hi' });
    other.knowledge.remember({ agent: 'helios', content: 'x', source_message_id: m.id });
    other.messages.markRead({ message_id: m.id, agent: 'helios' });
    clock.tick();
    other.knowledge.remember({ agent: 'helios', content: 'y' });
    clock.tick();
    expect(batches).toEqual([[m.id]]);
  });
});
