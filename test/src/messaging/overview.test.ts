import { afterEach, describe, expect, it } from 'vitest';
import { connectionOf } from '../../../src/brain.js';
import { tempBrain, type TempBrain } from '../../helpers.js';

let t: TempBrain;
afterEach(() => t.cleanup());

describe('agentActivity', () => {
  it('counts unread, sent and received per agent and lists each one’s latest messages', async () => {
    t = await tempBrain();
    const b = t.brain;
    const a = b.messages.send({ from: 'nova', to: 'helios', body: 'one' });
    b.messages.send({ from: 'nova', to: 'helios', thread: a.thread_id, body: 'two' });
    b.messages.send({ from: 'helios', to: null, thread: a.thread_id, body: 'to all' });
    b.messages.read({ agent: 'helios', limit: 1 });
    const byName = Object.fromEntries(
      b.messages.agentActivity({ latest: 1 }).map((x) => [x.name, x]),
    );
    expect(byName.nova).toMatchObject({ sent: 2, received: 1, unread: 1 });
    expect(byName.helios).toMatchObject({ sent: 1, received: 2, unread: 1 });
    expect(byName.nova!.latest.map((m) => m.body)).toEqual(['two']);
  });

  it('counts over all history and finds an agent’s latest messages however long ago it wrote', async () => {
    t = await tempBrain();
    const b = t.brain;
    const first = b.messages.send({ from: 'quiet', to: 'helios', body: 'long ago' });
    for (let i = 0; i < 30; i++)
      b.messages.send({
        from: 'nova',
        to: 'helios',
        thread: first.thread_id,
        body: `chatter ${i}`,
      });
    b.messages.send({ from: 'quiet', body: 'to everyone' }); // delivered to nova and helios
    const byName = Object.fromEntries(
      b.messages.agentActivity({ latest: 2 }).map((x) => [x.name, x]),
    );
    expect(byName.quiet).toMatchObject({ sent: 2, received: 0 });
    expect(byName.quiet!.latest.map((m) => m.body)).toEqual(['to everyone', 'long ago']);
    expect(byName.nova).toMatchObject({ sent: 30, received: 1 });
    expect(byName.helios).toMatchObject({ sent: 0, received: 32, latest: [] });
  });

  it('keeps the counts in step when a repair removes a delivery', async () => {
    t = await tempBrain();
    const b = t.brain;
    b.messages.send({ from: 'nova', to: 'helios', body: 'one' });
    // What `brain doctor --repair` does to a delivery of a vanished agent: a delete in SQL.
    connectionOf(b).prepare(`DELETE FROM deliveries`).run();
    const byName = Object.fromEntries(b.messages.agentActivity().map((x) => [x.name, x]));
    expect(byName.helios).toMatchObject({ received: 0, unread: 0 });
    expect(byName.nova).toMatchObject({ sent: 1 });
  });
});

describe('inboxView', () => {
  it('shows unread oldest first and read newest first without marking anything read', async () => {
    t = await tempBrain();
    const b = t.brain;
    const first = b.messages.send({ from: 'nova', to: 'helios', body: 'first' });
    b.messages.send({ from: 'nova', to: 'helios', thread: first.thread_id, body: 'second' });
    b.messages.read({ agent: 'helios', limit: 1 });
    b.messages.send({ from: 'nova', to: 'helios', thread: first.thread_id, body: 'third' });
    const view = b.messages.inboxView({ agent: 'helios' });
    expect(view.unread.map((m) => m.body)).toEqual(['second', 'third']);
    expect(view.unread_count).toBe(2);
    expect(view.read.map((m) => [m.body, typeof m.read_at])).toEqual([['first', 'string']]);
    expect(b.messages.poll('helios').unread).toBe(2);
    expect(b.messages.inboxView({ agent: 'nobody' })).toEqual({
      agent: 'nobody',
      unread: [],
      unread_count: 0,
      read: [],
    });
  });

  it('rejects a bad agent name naming the field', async () => {
    t = await tempBrain();
    expect(() => t.brain.messages.inboxView({ agent: '<x>' })).toThrow(/agent/);
  });
});

describe('derivedFromMessages', () => {
  it('maps each message to the memories and atoms made from it, leaving out messages without any', async () => {
    t = await tempBrain();
    const b = t.brain;
    const m1 = b.messages.send({ from: 'nova', to: 'helios', body: 'disk full' });
    const m2 = b.messages.send({
      from: 'nova',
      to: 'helios',
      thread: m1.thread_id,
      body: 'nothing here',
    });
    const stm = b.knowledge.remember({
      agent: 'helios',
      content: 'disks fill',
      source_message_id: m1.id,
    });
    const atom = b.knowledge.createAtom({
      agent: 'helios',
      subject: 'disk',
      action: 'fill',
      outcome: 'full',
      source_message_id: m1.id,
    });
    const derived = b.knowledge.derivedFromMessages([m1.id, m2.id, 'syn_000000000000']);
    expect([...derived.keys()]).toEqual([m1.id]);
    expect(derived.get(m1.id)!.stm.map((s) => s.id)).toEqual([stm.id]);
    expect(derived.get(m1.id)!.atoms.map((a) => a.id)).toEqual([atom.id]);
    expect(() => b.knowledge.derivedFromMessages(['nope'])).toThrow(/must be a message id/);
  });
});
