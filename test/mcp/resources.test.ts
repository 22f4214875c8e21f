import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tempBrain, type TempBrain } from '../helpers.js';
import { call, connectInMemory, type Connected } from './helpers.js';

let t: TempBrain;
let alice: Connected;
let bob: Connected;
beforeEach(async () => {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  t = await tempBrain();
  alice = await connectInMemory(t.brain, { agent: 'alice' });
  bob = await connectInMemory(t.brain, { agent: 'bob' });
});
afterEach(async () => {
  await alice.close();
  await bob.close();
  t.cleanup();
  vi.useRealTimers();
});

function updates(client: Client): string[] {
  const seen: string[] = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    seen.push(n.params.uri);
  });
  return seen;
}

/** Let the watcher look once, then let the in-memory transport deliver what it sent. */
async function tick(): Promise<void> {
  vi.advanceTimersByTime(50);
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
}

const json = (r: { contents: unknown[] }) => JSON.parse((r.contents[0] as { text: string }).text);

describe('resources', () => {
  it('lists the caller’s inbox and the four templates', async () => {
    const { resources } = await bob.client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(['brain://inbox/bob']);
    const { resourceTemplates } = await bob.client.listResourceTemplates();
    expect(resourceTemplates.map((r) => r.uriTemplate).sort()).toEqual([
      'brain://attachment/{sha256}',
      'brain://inbox/{agent}',
      'brain://knowledge/{id}',
      'brain://thread/{thread_id}',
    ]);
  });

  it('reads the inbox without marking anything read; never another agent’s inbox', async () => {
    const sent = await call(alice.client, 'send_message', { to: 'bob', body: 'hello' });
    const inbox = json(await bob.client.readResource({ uri: 'brain://inbox/bob' }));
    expect(inbox).toMatchObject({ agent: 'bob', unread: 1 });
    expect(inbox.messages.map((m: any) => m.id)).toEqual([sent.id]);
    expect(t.brain.messages.poll('bob').unread).toBe(1);
    await expect(alice.client.readResource({ uri: 'brain://inbox/bob' })).rejects.toThrow(
      /only your own inbox/,
    );
  });

  it('reads a thread, and knowledge with the message it came from', async () => {
    const sent = await call(alice.client, 'send_message', { to: 'bob', body: 'use 2%' });
    const memory = await call(bob.client, 'remember', {
      content: '2% gate',
      source_message_id: sent.id,
    });
    const thread = json(await bob.client.readResource({ uri: `brain://thread/${sent.thread_id}` }));
    expect(thread.messages.map((m: any) => m.id)).toEqual([sent.id]);
    const knowledge = json(
      await bob.client.readResource({ uri: `brain://knowledge/${memory.id}` }),
    );
    expect(knowledge.knowledge.record.id).toBe(memory.id);
    expect(knowledge.message.id).toBe(sent.id);
    await expect(bob.client.readResource({ uri: `brain://knowledge/${sent.id}` })).rejects.toThrow(
      /STM or atom id/,
    );
    await expect(bob.client.readResource({ uri: 'brain://thread/nope' })).rejects.toThrow(
      /thread_id: must be a thread id/,
    );
  });
});

describe('subscriptions', () => {
  it('notify the inbox when a message for the caller arrives from another connection', async () => {
    const seen = updates(bob.client);
    await bob.client.subscribeResource({ uri: 'brain://inbox/bob' });
    const other = await t.reopen(); // another connection, as another process would have
    other.messages.send({ from: 'alice', to: 'carol', body: 'not for bob' });
    await tick();
    expect(seen).toEqual([]);
    other.messages.send({ from: 'alice', to: 'bob', body: 'for bob' });
    await tick();
    expect(seen).toEqual(['brain://inbox/bob']);
  });

  it('notify on a message sent through another session of the same server process', async () => {
    const seen = updates(bob.client);
    await bob.client.subscribeResource({ uri: 'brain://inbox/bob' });
    await call(alice.client, 'send_message', { body: 'broadcast' });
    await tick();
    expect(seen).toEqual(['brain://inbox/bob']);
  });

  it('notify a thread subscriber of new messages in that thread only', async () => {
    const first = await call(alice.client, 'send_message', { to: 'carol', body: 'start' });
    await call(alice.client, 'send_message', { to: 'carol', body: 'elsewhere' });
    const seen = updates(bob.client);
    const uri = `brain://thread/${first.thread_id}`;
    await bob.client.subscribeResource({ uri });
    await call(alice.client, 'send_message', { to: 'carol', body: 'other thread' });
    await tick();
    expect(seen).toEqual([]);
    await call(alice.client, 'send_message', {
      to: 'carol',
      body: 'more',
      thread: first.thread_id,
    });
    await tick();
    expect(seen).toEqual([uri]);
  });

  it('stop after unsubscribe', async () => {
    const seen = updates(bob.client);
    await bob.client.subscribeResource({ uri: 'brain://inbox/bob' });
    await bob.client.unsubscribeResource({ uri: 'brain://inbox/bob' });
    (await t.reopen()).messages.send({ from: 'alice', to: 'bob', body: 'late' });
    await tick();
    expect(seen).toEqual([]);
  });

  it('refuse what never changes or is not the caller’s', async () => {
    await expect(bob.client.subscribeResource({ uri: 'brain://inbox/alice' })).rejects.toThrow(
      /only your own inbox/,
    );
    await expect(
      bob.client.subscribeResource({ uri: 'brain://knowledge/stm_000000000000' }),
    ).rejects.toThrow(/knowledge never does/);
  });
});

describe('prompts', () => {
  it('catch_up shows unread mail without marking it read', async () => {
    const sent = await call(alice.client, 'send_message', { to: 'bob', body: 'status?' });
    const { prompts } = await bob.client.listPrompts();
    expect(prompts.map((p) => p.name).sort()).toEqual(['catch_up', 'record_decision']);
    const p = await bob.client.getPrompt({ name: 'catch_up' });
    const text = (p.messages[0]!.content as { text: string }).text;
    expect(text).toContain('You are bob');
    expect(text).toContain(sent.id);
    expect(text).toContain('status?');
    expect(t.brain.messages.poll('bob').unread).toBe(1);
  });

  it('record_decision points the model at create_atom with the source message', async () => {
    const p = await bob.client.getPrompt({
      name: 'record_decision',
      arguments: { decision: 'gate at 2%', message_id: 'syn_0123456789ab' },
    });
    const text = (p.messages[0]!.content as { text: string }).text;
    expect(text).toContain('gate at 2%');
    expect(text).toContain('create_atom');
    expect(text).toContain('source_message_id syn_0123456789ab');
  });
});
