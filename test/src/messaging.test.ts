import { connectionOf } from '../../src/brain.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PAGE_SQL } from '../../src/messaging/threads.js';
import { fixedClock, tempBrain, type TempBrain } from '../helpers.js';

let t: TempBrain;
let clock: ReturnType<typeof fixedClock>;
beforeEach(async () => {
  clock = fixedClock();
  t = await tempBrain({ clock });
});
afterEach(() => t.cleanup());

describe('send', () => {
  it('creates a thread that takes the subject, and returns syn_/thr_ ids', () => {
    const r = t.brain.messages.send({
      from: 'helios',
      to: 'nova',
      subject: 'spread gate',
      body: 'no edge',
    });
    expect(r.id).toMatch(/^syn_[0-9a-f]{12}$/);
    expect(r.thread_id).toMatch(/^thr_[0-9a-f-]{36}$/);
    const thread = t.brain.messages.getThread(r.thread_id)!;
    expect(thread.subject).toBe('spread gate');
    expect(thread.message_count).toBe(1);
    expect(thread.created_by).toBe('helios');
  });

  it('updates the thread count and last_message_at in the same transaction', () => {
    const first = t.brain.messages.send({ from: 'helios', to: 'nova', subject: 's', body: 'one' });
    clock.tick(5000);
    const second = t.brain.messages.send({
      from: 'nova',
      to: 'helios',
      body: 'two',
      reply_to: first.id,
    });
    expect(second.thread_id).toBe(first.thread_id);
    const thread = t.brain.messages.getThread(first.thread_id)!;
    expect(thread.message_count).toBe(2);
    expect(thread.last_message_at).toBe(second.created_at);
    expect(t.brain.messages.getMessage(second.id)!.reply_to).toBe(first.id);
  });

  it('takes a subject from the body when none is given', () => {
    const r = t.brain.messages.send({ from: 'a', to: 'b', body: 'first line here\nsecond line' });
    expect(t.brain.messages.getThread(r.thread_id)!.subject).toBe('first line here');
  });

  it('keeps priority, metadata and tags', () => {
    const r = t.brain.messages.send({
      from: 'a',
      to: 'b',
      body: 'x',
      priority: 'urgent',
      metadata: { k: [1, 2] },
      tags: ['ops'],
    });
    const m = t.brain.messages.getMessage(r.id)!;
    expect(m.priority).toBe('urgent');
    expect(m.metadata).toEqual({ k: [1, 2] });
    expect(t.brain.messages.getThread(r.thread_id)!.tags).toEqual(['ops']);
  });

  it('rejects bad input naming the field, and writes nothing', () => {
    const before = t.brain.transfer.export();
    expect(() => t.brain.messages.send({ from: 'a', to: 'b', body: '' })).toThrow(
      /body: must not be empty/,
    );
    expect(() => t.brain.messages.send({ from: 'a', to: 'b' } as never)).toThrow(
      /body: is required/,
    );
    expect(() =>
      t.brain.messages.send({ from: 'a', to: 'b', body: 'x', priority: 'high' as never }),
    ).toThrow(/priority: must be one of info, normal, action, urgent/);
    expect(() => t.brain.messages.send({ from: 'a b', to: 'b', body: 'x' })).toThrow(/from:/);
    expect(() => t.brain.messages.send({ from: 'a', to: 'b', body: 'x\0y' })).toThrow(
      /body: must not contain NUL/,
    );
    expect(() =>
      t.brain.messages.send({ from: 'a', to: 'b', body: 'x', thread: 'thr_nope' }),
    ).toThrow(/thread:/);
    expect(() =>
      t.brain.messages.send({ from: 'a', to: 'b', body: 'x', reply_to: 'syn_000000000000' }),
    ).toThrow(/reply_to: no message/);
    expect(t.brain.transfer.export()).toEqual(before);
  });

  it('refuses bodies over the size limit', async () => {
    const small = await tempBrain({ maxBodyBytes: 100 });
    try {
      expect(() =>
        small.brain.messages.send({ from: 'a', to: 'b', body: 'x'.repeat(101) }),
      ).toThrow(/body: is 101 bytes; the limit is 100/);
      expect(small.brain.messages.send({ from: 'a', to: 'b', body: 'x'.repeat(100) }).id).toMatch(
        /^syn_/,
      );
    } finally {
      small.cleanup();
    }
  });

  it('refuses to send into a closed thread, and reopens an archived one', () => {
    const r = t.brain.messages.send({ from: 'a', to: 'b', subject: 's', body: 'x' });
    t.brain.messages.setThreadStatus(r.thread_id, 'archived');
    t.brain.messages.send({ from: 'a', to: 'b', body: 'y', thread: r.thread_id });
    expect(t.brain.messages.getThread(r.thread_id)!.status).toBe('active');
    t.brain.messages.setThreadStatus(r.thread_id, 'closed');
    expect(() =>
      t.brain.messages.send({ from: 'a', to: 'b', body: 'z', thread: r.thread_id }),
    ).toThrow(/closed/);
  });
});

describe('inbox', () => {
  it('delivers a broadcast to every other agent, each reading it on its own', () => {
    for (const a of ['nova', 'atlas']) t.brain.touchAgent(a);
    t.brain.messages.send({ from: 'helios', body: 'all hands' });
    expect(t.brain.messages.poll('nova').unread).toBe(1);
    expect(t.brain.messages.poll('atlas').unread).toBe(1);
    expect(t.brain.messages.poll('helios').unread).toBe(0);

    expect(t.brain.messages.read({ agent: 'nova' }).map((m) => m.body)).toEqual(['all hands']);
    expect(t.brain.messages.poll('nova').unread).toBe(0);
    expect(t.brain.messages.poll('atlas').unread).toBe(1);
    expect(t.brain.messages.read({ agent: 'atlas' })).toHaveLength(1);
    expect(t.brain.messages.poll('atlas').unread).toBe(0);
  });

  it('peek has no side effect; read returns and marks read in one go', () => {
    t.brain.messages.send({ from: 'helios', to: 'nova', body: 'one' });
    t.brain.messages.send({ from: 'helios', to: 'nova', body: 'two' });
    expect(t.brain.messages.peek({ agent: 'nova' }).map((m) => m.body)).toEqual(['one', 'two']);
    expect(t.brain.messages.peek({ agent: 'nova' })).toHaveLength(2);
    expect(t.brain.messages.poll('nova').unread).toBe(2);
    expect(t.brain.messages.read({ agent: 'nova', limit: 1 }).map((m) => m.body)).toEqual(['one']);
    expect(t.brain.messages.poll('nova').unread).toBe(1);
    expect(t.brain.messages.read({ agent: 'nova' }).map((m) => m.body)).toEqual(['two']);
    expect(t.brain.messages.read({ agent: 'nova' })).toEqual([]);
  });

  it('an unknown agent has nothing unread and poll registers nobody', () => {
    expect(t.brain.messages.poll('ghost')).toEqual({ agent: 'ghost', unread: 0 });
    expect(t.brain.messages.getAgent('ghost')).toBeUndefined();
  });

  it('poll reads only the partial index of unread deliveries (it covers the count)', () => {
    const plan = connectionOf(t.brain)
      .prepare(
        `EXPLAIN QUERY PLAN SELECT count(*) AS n FROM deliveries
         WHERE agent_id = (SELECT id FROM agents WHERE name = ?) AND read_at IS NULL`,
      )
      .all('nova') as Array<{ detail: string }>;
    expect(plan.map((p) => p.detail).join('\n')).toMatch(
      /SEARCH deliveries USING COVERING INDEX deliveries_unread \(agent_id=\?\)/,
    );
  });

  it('a page of a thread is chosen in its index alone, so OFFSET skips index entries only', () => {
    const plan = connectionOf(t.brain)
      .prepare(`EXPLAIN QUERY PLAN ${PAGE_SQL}`)
      .all(1, 50, 100) as Array<{
      detail: string;
    }>;
    const steps = plan.map((p) => p.detail).join('\n');
    expect(steps).toMatch(
      /SEARCH messages USING COVERING INDEX messages_by_thread \(thread_id=\?\)/,
    );
    expect(steps).not.toMatch(/TEMP B-TREE/);
  });

  it('markRead marks one message read for one agent, once, and names an unknown message', () => {
    const a = t.brain.messages.send({ from: 'helios', to: 'nova', body: 'one' });
    const b = t.brain.messages.send({ from: 'helios', to: 'nova', body: 'two' });
    expect(t.brain.messages.markRead({ message_id: a.id, agent: 'nova' })).toBe(true);
    expect(t.brain.messages.markRead({ message_id: a.id, agent: 'nova' })).toBe(false);
    expect(t.brain.messages.markRead({ message_id: a.id, agent: 'helios' })).toBe(false);
    expect(t.brain.messages.peek({ agent: 'nova' }).map((m) => m.id)).toEqual([b.id]);
    expect(() =>
      t.brain.messages.markRead({ message_id: 'syn_000000000000', agent: 'nova' }),
    ).toThrow(/message_id: no message/);
    expect(() => t.brain.messages.markRead({ message_id: 'nope', agent: 'nova' })).toThrow(
      /message_id:/,
    );
  });

  it('ack is idempotent, carries a body, marks read and shows in the thread', () => {
    const r = t.brain.messages.send({ from: 'helios', to: 'nova', subject: 's', body: 'x' });
    const first = t.brain.messages.ack({ message_id: r.id, agent: 'nova', body: 'agreed' });
    expect(first).toMatchObject({ created: true, body: 'agreed' });
    clock.tick();
    const second = t.brain.messages.ack({
      message_id: r.id,
      agent: 'nova',
      body: 'changed my mind',
    });
    expect(second).toMatchObject({ created: false, body: 'agreed', created_at: first.created_at });
    expect(t.brain.messages.poll('nova').unread).toBe(0);
    const history = t.brain.messages.thread({ thread_id: r.thread_id });
    expect(history.messages[0]!.acks).toEqual([
      { message_id: r.id, agent: 'nova', body: 'agreed', created_at: first.created_at },
    ]);
    expect(history.messages[0]!.receipts).toEqual([{ agent: 'nova', read_at: first.created_at }]);
    expect(() => t.brain.messages.ack({ message_id: 'syn_000000000000', agent: 'nova' })).toThrow(
      /message_id: no message/,
    );
  });
});

describe('threads', () => {
  it('pages history in order, ties by insertion order', () => {
    const r = t.brain.messages.send({ from: 'a', to: 'b', subject: 's', body: 'm0' });
    for (let i = 1; i < 5; i += 1)
      t.brain.messages.send({ from: 'a', to: 'b', body: `m${i}`, thread: r.thread_id });
    const page1 = t.brain.messages.thread({ thread_id: r.thread_id, limit: 3 });
    expect(page1.messages.map((m) => m.body)).toEqual(['m0', 'm1', 'm2']);
    expect(page1.next_offset).toBe(3);
    const page2 = t.brain.messages.thread({ thread_id: r.thread_id, limit: 3, offset: 3 });
    expect(page2.messages.map((m) => m.body)).toEqual(['m3', 'm4']);
    expect(page2.next_offset).toBeNull();
  });

  it('lists by status and tag, most recent first', () => {
    const a = t.brain.messages.send({
      from: 'a',
      to: 'b',
      subject: 'first',
      body: 'x',
      tags: ['ops'],
    });
    clock.tick();
    const b = t.brain.messages.send({ from: 'a', to: 'b', subject: 'second', body: 'x' });
    expect(t.brain.messages.threads().map((x) => x.id)).toEqual([b.thread_id, a.thread_id]);
    expect(t.brain.messages.threads({ tag: 'ops' }).map((x) => x.id)).toEqual([a.thread_id]);
    t.brain.messages.setThreadStatus(a.thread_id, 'archived');
    expect(t.brain.messages.threads({ status: 'archived' }).map((x) => x.id)).toEqual([
      a.thread_id,
    ]);
    expect(t.brain.messages.threads({ status: 'active' }).map((x) => x.id)).toEqual([b.thread_id]);
    t.brain.messages.tagThread({ thread_id: b.thread_id, add: ['x', 'y'] });
    expect(t.brain.messages.tagThread({ thread_id: b.thread_id, remove: ['x'] }).tags).toEqual([
      'y',
    ]);
  });
});

describe('agents', () => {
  it('are seen to the minute: a touch within a minute of the last one writes nothing', () => {
    t.brain.touchAgent('helios');
    const first = t.brain.messages.getAgent('helios')!.last_seen_at;
    const db = connectionOf(t.brain);
    const changes = () => db.prepare('SELECT total_changes()').pluck().get() as number;
    const before = changes();
    clock.tick(59_999);
    expect(t.brain.touchAgent('helios', { wait: false })).toBe(true);
    t.brain.touchAgent('helios');
    expect(changes()).toBe(before);
    expect(t.brain.messages.getAgent('helios')!.last_seen_at).toBe(first);
    clock.tick(1);
    t.brain.touchAgent('helios');
    expect(changes()).toBe(before + 1);
    expect(t.brain.messages.getAgent('helios')!.last_seen_at > first).toBe(true);
  });

  it('register on first use and update last_seen', () => {
    t.brain.messages.send({ from: 'helios', to: 'nova', body: 'x' });
    const created = t.brain.messages.getAgent('helios')!;
    clock.tick(60_000);
    t.brain.touchAgent('helios');
    const seen = t.brain.messages.getAgent('helios')!;
    expect(seen.created_at).toBe(created.created_at);
    expect(seen.last_seen_at > created.last_seen_at).toBe(true);
    const updated = t.brain.messages.updateAgent({
      name: 'helios',
      display_name: 'Helios',
      capabilities: ['trading'],
    });
    expect(updated).toMatchObject({ display_name: 'Helios', capabilities: ['trading'] });
    expect(t.brain.messages.listAgents().map((a) => a.name)).toEqual(['helios', 'nova']);
  });
});
