import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixedClock, tempBrain, type TempBrain } from '../helpers.js';

// Sending, importing and migrating from SYNAPSE write through the same functions
// (src/messaging/store.ts, src/knowledge/store.ts); these are the differences each keeps.

let t: TempBrain;
let clock: ReturnType<typeof fixedClock>;
beforeEach(async () => {
  clock = fixedClock();
  t = await tempBrain({ clock });
});
afterEach(() => t.cleanup());

function synapseFile(messages: unknown[]): string {
  const path = join(t.dir, 'synapse.json');
  writeFileSync(path, JSON.stringify({ messages }));
  return path;
}

describe('one write path for messages', () => {
  it('counts a message in its thread whichever way it came, but only sending reopens an archived thread', async () => {
    const first = t.brain.messages.send({
      from: 'helios',
      to: 'nova',
      subject: 'kiln',
      body: 'hot?',
    });
    t.brain.messages.setThreadStatus(first.thread_id, 'archived');
    const report = t.brain.transfer.migrateSynapse(
      synapseFile([
        {
          id: 'legacy-1',
          from: 'nova',
          to: 'helios',
          thread: first.thread_id,
          body: 'not yet',
          timestamp: '2026-01-01T00:05:00Z',
        },
      ]),
    );
    expect(report.imported).toBe(1);
    expect(t.brain.messages.getThread(first.thread_id)).toMatchObject({
      status: 'archived',
      message_count: 2,
      last_message_at: '2026-01-01T00:05:00.000Z',
    });

    const doc = t.brain.transfer.export();
    const other = await t.reopen({ dbPath: join(t.dir, 'other.db') });
    other.transfer.import({ ...doc, messages: doc.messages.slice(0, 1) });
    other.transfer.import(doc);
    expect(other.messages.getThread(first.thread_id)).toMatchObject({
      status: 'archived',
      message_count: 2,
    });

    clock.tick(600_000);
    t.brain.messages.send({ from: 'helios', thread: first.thread_id, body: 'now?' });
    expect(t.brain.messages.getThread(first.thread_id)).toMatchObject({
      status: 'active',
      message_count: 3,
      last_message_at: '2026-01-01T00:10:00.000Z',
    });
  });

  it('gives a message already in the brain the receipts and acks an import adds to it', async () => {
    const sent = t.brain.messages.send({ from: 'helios', to: 'nova', body: 'the glaze' });
    const doc = t.brain.transfer.export();
    const other = await t.reopen({ dbPath: join(t.dir, 'other.db') });
    other.transfer.import(doc);
    expect(other.messages.poll('nova').unread).toBe(1);

    clock.tick();
    t.brain.messages.ack({ message_id: sent.id, agent: 'nova', body: 'on it' });
    const again = t.brain.transfer.export();
    const atlas = { ...again.agents[0]!, name: 'atlas' };
    again.agents.push(atlas);
    again.messages[0]!.receipts.push({ agent: 'atlas', read_at: null });
    const result = other.transfer.import(again);
    expect(other.messages.poll('atlas').unread).toBe(1);
    expect(result.imported.messages).toBe(0);
    expect(result.existing.messages).toBe(1);
    const [message] = other.messages.thread({ thread_id: sent.thread_id }).messages;
    expect(message!.acks).toEqual([
      {
        message_id: sent.id,
        agent: 'nova',
        body: 'on it',
        created_at: '2026-01-01T00:00:01.000Z',
      },
    ]);
  });

  it('moves the sender last seen, not the recipient', () => {
    t.brain.messages.send({ from: 'helios', to: 'nova', body: 'one' });
    clock.tick(60_000);
    t.brain.messages.send({ from: 'atlas', to: 'nova', body: 'two' });
    clock.tick(60_000);
    t.brain.messages.send({ from: 'helios', to: 'atlas', body: 'three' });
    expect(t.brain.messages.getAgent('helios')).toMatchObject({
      created_at: '2026-01-01T00:00:00.000Z',
      last_seen_at: '2026-01-01T00:02:00.000Z',
    });
    expect(t.brain.messages.getAgent('nova')).toMatchObject({
      created_at: '2026-01-01T00:00:00.000Z',
      last_seen_at: '2026-01-01T00:00:00.000Z',
    });
    expect(t.brain.messages.getAgent('atlas')!.last_seen_at).toBe('2026-01-01T00:01:00.000Z');
  });
});

describe('import times', () => {
  it('refuses a time shaped like one that does not exist, naming the field, and changes nothing', async () => {
    t.brain.messages.send({ from: 'helios', to: 'nova', body: 'the kiln' });
    const doc = t.brain.transfer.export();
    const other = await t.reopen({ dbPath: join(t.dir, 'other.db') });
    const bad = {
      ...doc,
      agents: [{ ...doc.agents[0]!, last_seen_at: '2026-13-01T00:00:00.000Z' }],
    };
    expect(() => other.transfer.import(bad)).toThrow(
      /agents\.0\.last_seen_at: must be a time that exists/,
    );
    expect(other.messages.listAgents()).toEqual([]);
    expect(other.messages.threads()).toEqual([]);
  });
});
