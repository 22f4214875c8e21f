import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempBrain, type TempBrain } from '../helpers.js';
import { call, callRaw, connectInMemory, textOf, type Connected } from './helpers.js';

let t: TempBrain;
let alice: Connected;
let bob: Connected;
beforeEach(async () => {
  t = await tempBrain();
  alice = await connectInMemory(t.brain, { agent: 'alice' });
  bob = await connectInMemory(t.brain, { agent: 'bob' });
});
afterEach(async () => {
  await alice.close();
  await bob.close();
  t.cleanup();
});

const counts = () => {
  const doc = t.brain.transfer.export();
  return { messages: doc.messages.length, stm: doc.stm.length, atoms: doc.atoms.length };
};

describe('messaging tools', () => {
  it('send_message sends as the server agent and answers {id, thread_id}', async () => {
    const sent = await call(alice.client, 'send_message', {
      to: 'bob',
      subject: 'gate',
      body: 'hi',
    });
    expect(sent.id).toMatch(/^syn_/);
    expect(sent.thread_id).toMatch(/^thr_/);
    expect(sent.recipients).toBe(1);
    const stored = t.brain.messages.getMessage(sent.id)!;
    expect(stored.from).toBe('alice');
    expect(stored.to).toBe('bob');
    const text = textOf(await callRaw(alice.client, 'send_message', { to: 'bob', body: 'again' }));
    expect(text).toMatch(/^sent syn_[0-9a-f]{12} to bob in thread thr_/);
  });

  it('never takes identity from the arguments', async () => {
    const before = counts();
    for (const args of [
      { from: 'mallory', to: 'bob', body: 'spoof' },
      { agent: 'mallory', to: 'bob', body: 'spoof' },
    ]) {
      const r = await callRaw(alice.client, 'send_message', args);
      expect(r.isError).toBe(true);
      expect(textOf(r)).toMatch(/Unrecognized key: "(from|agent)"/);
    }
    expect(await callRaw(bob.client, 'read_inbox', { agent: 'alice' })).toMatchObject({
      isError: true,
    });
    expect(counts()).toEqual(before);
  });

  it('poll_inbox counts, read_inbox peeks with mark_read false and marks read by default', async () => {
    const sent = await call(alice.client, 'send_message', { to: 'bob', body: 'one' });
    expect(await call(bob.client, 'poll_inbox')).toEqual({ agent: 'bob', unread: 1 });
    expect(await call(alice.client, 'poll_inbox')).toEqual({ agent: 'alice', unread: 0 });

    const peek = await callRaw(bob.client, 'read_inbox', { mark_read: false });
    expect((peek.structuredContent as any).messages.map((m: any) => m.id)).toEqual([sent.id]);
    expect(textOf(peek)).toContain('one');
    expect(textOf(peek)).toContain('still unread');
    expect(await call(bob.client, 'poll_inbox')).toMatchObject({ unread: 1 });

    const read = await call(bob.client, 'read_inbox');
    expect(read.messages).toHaveLength(1);
    expect(read.messages[0]).toMatchObject({ id: sent.id, from: 'alice', body: 'one' });
    expect(await call(bob.client, 'poll_inbox')).toMatchObject({ unread: 0 });
    expect(await call(bob.client, 'read_inbox')).toEqual({ messages: [] });
  });

  it('ack_message acknowledges once, as the caller', async () => {
    const sent = await call(alice.client, 'send_message', { to: 'bob', body: 'deploy?' });
    const first = await call(bob.client, 'ack_message', { message_id: sent.id, body: 'done' });
    expect(first).toMatchObject({ message_id: sent.id, agent: 'bob', body: 'done', created: true });
    const again = await callRaw(bob.client, 'ack_message', { message_id: sent.id, body: 'x' });
    expect(again.structuredContent).toMatchObject({ created: false, body: 'done' });
    expect(textOf(again)).toContain('already acknowledged');
    expect(await call(bob.client, 'poll_inbox')).toMatchObject({ unread: 0 });
  });

  it('get_thread and list_threads show the conversation with receipts and acks', async () => {
    const first = await call(alice.client, 'send_message', {
      to: 'bob',
      subject: 'spread gate',
      body: 'should we gate on spread?',
      tags: ['ops'],
    });
    await call(bob.client, 'read_inbox');
    const reply = await call(bob.client, 'send_message', {
      to: 'alice',
      body: 'yes, at 2%',
      reply_to: first.id,
    });
    expect(reply.thread_id).toBe(first.thread_id);
    await call(alice.client, 'ack_message', { message_id: reply.id, body: 'agreed' });

    const result = await callRaw(alice.client, 'get_thread', { thread_id: first.thread_id });
    const history = result.structuredContent as any;
    expect(history.thread).toMatchObject({ subject: 'spread gate', message_count: 2 });
    expect(history.messages.map((m: any) => m.id)).toEqual([first.id, reply.id]);
    expect(history.messages[0].receipts[0]).toMatchObject({ agent: 'bob' });
    expect(history.next_offset).toBeNull();
    expect(textOf(result)).toContain('read by bob');
    expect(textOf(result)).toContain('acked by alice ("agreed")');

    const listed = await call(bob.client, 'list_threads', { tag: 'ops' });
    expect(listed.threads.map((x: any) => x.id)).toEqual([first.thread_id]);
  });
});

describe('knowledge tools', () => {
  it('remember, create_atom and link_atoms store knowledge as the caller, with provenance', async () => {
    const msg = await call(alice.client, 'send_message', {
      to: 'bob',
      body: 'We decided to gate trading on a 2% spread.',
    });
    const memory = await call(bob.client, 'remember', {
      content: 'trading is gated on a 2% spread',
      categories: ['Decision'],
      importance: 2,
      source_message_id: msg.id,
    });
    expect(memory).toMatchObject({
      agent: 'bob',
      categories: ['decision'],
      source_message_id: msg.id,
    });
    const cause = await call(bob.client, 'create_atom', {
      subject: 'spread gate',
      action: 'gate trading at 2% spread',
      outcome: 'fewer bad fills',
      source_message_id: msg.id,
    });
    const effect = await call(bob.client, 'create_atom', {
      subject: 'volume',
      action: 'fewer trades',
      outcome: 'lower fees',
    });
    expect(cause).toMatchObject({ agent: 'bob', confidence: 0.5, source_message_id: msg.id });
    const link = await call(bob.client, 'link_atoms', { from: cause.id, to: effect.id });
    expect(link).toMatchObject({ from: cause.id, to: effect.id, type: 'causes' });

    const fromMemory = await callRaw(alice.client, 'find_provenance', { id: memory.id });
    const p = fromMemory.structuredContent as any;
    expect(p.knowledge.record.id).toBe(memory.id);
    expect(p.message.id).toBe(msg.id);
    expect(p.thread.id).toBe(msg.thread_id);
    expect(textOf(fromMemory)).toContain(`source ${msg.id}`);

    const fromMessage = await call(alice.client, 'find_provenance', { id: msg.id });
    expect(fromMessage.derived.stm.map((s: any) => s.id)).toEqual([memory.id]);
    expect(fromMessage.derived.atoms.map((a: any) => a.id)).toEqual([cause.id]);
  });

  it('search finds messages and knowledge with their thread; recent lists the latest', async () => {
    const msg = await call(alice.client, 'send_message', {
      to: 'bob',
      subject: 'latency',
      body: 'The websocket reconnect storm doubled latency.',
    });
    await call(bob.client, 'remember', {
      content: 'reconnect storm doubles latency',
      source_message_id: msg.id,
    });
    const result = await callRaw(bob.client, 'search', { query: 'reconnect storm latency' });
    const hits = (result.structuredContent as any).hits;
    expect(hits.map((h: any) => h.type).sort()).toEqual(['message', 'stm']);
    for (const h of hits) expect(h.thread_id).toBe(msg.thread_id);
    expect(textOf(result)).toMatch(/^1\. (message|stm) /);

    const onlyStm = await call(bob.client, 'search', { query: 'latency', types: ['stm'] });
    expect(onlyStm.hits.map((h: any) => h.type)).toEqual(['stm']);

    const recent = await call(alice.client, 'recent', { hours: 1 });
    expect(recent.items.map((i: any) => i.type)).toEqual(
      expect.arrayContaining(['message', 'stm']),
    );
    expect(recent.items.find((i: any) => i.type === 'message').record.id).toBe(msg.id);
  });
});

describe('bad input', () => {
  it('answers isError with a message naming the field, and writes nothing', async () => {
    await call(alice.client, 'send_message', { to: 'bob', body: 'seed' });
    const before = counts();
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['send_message', { to: 'bob' }, /body/],
      ['send_message', { to: 'bob', body: '   ' }, /body: must not be empty/],
      [
        'send_message',
        { to: 'bob', body: 'x', reply_to: 'nope' },
        /reply_to: must be a message id/,
      ],
      ['send_message', { to: 'bob', body: 'x', priority: 'high' }, /priority/],
      ['send_message', { to: 'b o b', body: 'x' }, /to: must be letters/],
      [
        'send_message',
        { body: 'x', thread: 'thr_00000000-0000-4000-8000-000000000000' },
        /NOT_FOUND: thread: no thread/,
      ],
      ['read_inbox', { limit: 'ten' }, /limit/],
      ['read_inbox', { limit: 0 }, /limit/],
      ['remember', { content: 'x', importance: 7 }, /importance/],
      ['remember', { content: 'x', expires_at: 'tomorrow' }, /expires_at: must be an ISO 8601/],
      ['create_atom', { subject: 's', action: 'a' }, /outcome/],
      ['link_atoms', { from: 'atm_000000000000', to: 'atm_000000000001' }, /from: no atom/],
      ['search', { query: '' }, /query: must not be empty/],
      ['find_provenance', { id: 'thr_x' }, /id: must be a message, STM or atom id/],
      ['get_thread', { thread_id: 'nope' }, /thread_id: must be a thread id/],
    ];
    for (const [tool, args, message] of cases) {
      const r = await callRaw(alice.client, tool, args);
      expect(r.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
      expect(textOf(r), `${tool} ${JSON.stringify(args)}`).toMatch(message);
    }
    expect(counts()).toEqual(before);
    // The server is still fine.
    expect(await call(bob.client, 'poll_inbox')).toMatchObject({ unread: 1 });
  });

  it('refuses to start for an invalid agent name', async () => {
    await expect(connectInMemory(t.brain, { agent: 'not an agent' })).rejects.toThrow(/agent:/);
  });
});
