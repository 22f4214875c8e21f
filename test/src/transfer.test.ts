import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ROOT, fixedClock, tempBrain, type TempBrain } from '../helpers.js';

let t: TempBrain;
let clock: ReturnType<typeof fixedClock>;
beforeEach(async () => {
  clock = fixedClock();
  t = await tempBrain({ clock });
});
afterEach(() => t.cleanup());

function populate(brain: TempBrain['brain']) {
  brain.touchAgent('atlas');
  const m = brain.messages.send({
    from: 'helios',
    to: 'nova',
    subject: 'spread gate',
    body: 'zero power',
    metadata: { run: 7 },
    tags: ['trading'],
  });
  clock.tick();
  const b = brain.messages.send({ from: 'helios', body: 'broadcast', priority: 'urgent' });
  clock.tick();
  const r = brain.messages.send({ from: 'nova', to: 'helios', body: 'agreed', reply_to: m.id });
  brain.messages.read({ agent: 'nova' });
  brain.messages.ack({ message_id: m.id, agent: 'nova', body: 'ok' });
  const s = brain.knowledge.remember({
    agent: 'nova',
    content: 'drop the gate',
    categories: ['x', 'y'],
    importance: 2,
    source_message_id: m.id,
    expires_at: '2027-01-01',
  });
  const a1 = brain.knowledge.createAtom({
    agent: 'nova',
    subject: 'gate',
    action: 'filter',
    outcome: 'none',
    source_message_id: m.id,
  });
  const a2 = brain.knowledge.createAtom({
    agent: 'nova',
    subject: 'halt',
    action: 'halt',
    outcome: 'fewer losses',
  });
  brain.knowledge.link({ from: a1.id, to: a2.id, type: 'enables', strength: 0.3 });
  brain.messages.setThreadStatus(b.thread_id, 'archived');
  return { m, b, r, s, a1, a2 };
}

describe('export and import', () => {
  it('round-trips everything: export → import → export is identical', async () => {
    populate(t.brain);
    const first = t.brain.transfer.export();
    expect(first.messages).toHaveLength(3);
    const other = await tempBrain();
    try {
      const result = other.brain.transfer.import(JSON.parse(JSON.stringify(first)));
      expect(result.imported).toMatchObject({
        agents: 3,
        threads: 2,
        messages: 3,
        stm: 1,
        atoms: 2,
        atom_links: 1,
        sessions: 0,
      });
      expect(other.brain.transfer.export()).toEqual(first);
      // Importing again adds nothing.
      const again = other.brain.transfer.import(first);
      expect(Object.values(again.imported).every((n) => n === 0)).toBe(true);
      expect(other.brain.transfer.export()).toEqual(first);
      // What was imported works: search, poll, provenance.
      expect(other.brain.search.search({ query: 'gate' }).hits.length).toBeGreaterThan(0);
      expect(other.brain.messages.poll('atlas').unread).toBe(1);
    } finally {
      other.cleanup();
    }
  });

  it('exports one thread with the knowledge derived from it', () => {
    const { m, s, a1 } = populate(t.brain);
    const doc = t.brain.transfer.export({ thread_id: m.thread_id });
    expect(doc.threads.map((x) => x.id)).toEqual([m.thread_id]);
    expect(doc.messages).toHaveLength(2);
    expect(doc.stm.map((x) => x.id)).toEqual([s.id]);
    expect(doc.atoms.map((x) => x.id)).toEqual([a1.id]);
    expect(doc.atom_links).toEqual([]);
    expect(doc.agents.map((x) => x.name).sort()).toEqual(['helios', 'nova']);
  });

  it('rejects a malformed document whole, naming the field, and changes nothing', async () => {
    populate(t.brain);
    const doc = t.brain.transfer.export();
    const other = await tempBrain();
    try {
      const bad = JSON.parse(JSON.stringify(doc));
      bad.messages[2].priority = 'loud';
      expect(() => other.brain.transfer.import(bad)).toThrow(/messages.2.priority: must be one of/);
      const dangling = JSON.parse(JSON.stringify(doc));
      dangling.messages[0].thread_id = 'thr_00000000-0000-4000-8000-000000000000';
      expect(() => other.brain.transfer.import(dangling)).toThrow(/refers to thr_00000000/);
      expect(() => other.brain.transfer.import({ format: 'nope' })).toThrow(/format/);
      expect(other.brain.transfer.export().messages).toEqual([]);
      expect(other.brain.messages.listAgents()).toEqual([]);
    } finally {
      other.cleanup();
    }
  });
});

describe('migrate from SYNAPSE and Cortex', () => {
  const fixtures = join(ROOT, 'test', 'fixtures', 'legacy');

  it('imports synapse.json strictly, reports skipped records with reasons, and is idempotent', () => {
    const report = t.brain.transfer.migrateSynapse(join(fixtures, 'synapse.json'));
    expect(report).toMatchObject({ read: 11, imported: 5, existing: 0 });
    expect(report.skipped.map((s) => [s.id ?? s.index, s.reason])).toEqual([
      ['msg-0005', 'no body'],
      ['msg-0006', 'no sender (from)'],
      ['msg-0007', 'no valid timestamp'],
      ['msg-0008', 'unknown priority "meh"'],
      ['msg-0009', 'several recipients in one message are not supported'],
      [9, 'not an object'],
    ]);
    expect(report.notes.join('\n')).toMatch(/msg-9999/);

    const doc = t.brain.transfer.export();
    const byLegacy = new Map(doc.messages.map((m) => [m.metadata?.legacy_id, m]));
    const first = byLegacy.get('msg-0001')!;
    expect(first).toMatchObject({
      from: 'helios',
      to: 'nova',
      priority: 'action',
      created_at: '2025-06-01T09:15:00.000Z',
    });
    expect(first.acks).toEqual([
      { agent: 'nova', body: 'agreed, dropping it', created_at: '2025-06-01T09:15:00.000Z' },
    ]);
    const reply = byLegacy.get('msg-0002')!;
    expect(reply.thread_id).toBe(first.thread_id);
    expect(reply.reply_to).toBe(first.id);
    expect(reply.receipts).toEqual([{ agent: 'helios', read_at: '2025-06-01T10:02:00.000Z' }]);
    const broadcast = byLegacy.get('msg-0003')!;
    expect(broadcast).toMatchObject({
      to: null,
      priority: 'urgent',
      created_at: '2025-06-01T17:46:40.000Z',
    });
    expect(broadcast.receipts.map((r) => [r.agent, r.read_at !== null])).toEqual([
      ['helios', true],
      ['nova', false],
    ]);
    expect(byLegacy.get('msg-0004')!.created_at).toBe('2025-06-02T08:00:00.000Z');
    expect(t.brain.messages.getThread(first.thread_id)!.message_count).toBe(2);

    const second = t.brain.transfer.migrateSynapse(join(fixtures, 'synapse.json'));
    expect(second).toMatchObject({ imported: 0, existing: 5 });
    expect(t.brain.transfer.export()).toEqual(doc);
  });

  it('imports a directory of Cortex entries, links sources to migrated messages, and is idempotent', () => {
    t.brain.transfer.migrateSynapse(join(fixtures, 'synapse.json'));
    const report = t.brain.transfer.migrateCortex(join(fixtures, 'cortex'));
    expect(report).toMatchObject({ read: 5, imported: 3, existing: 0 });
    expect(report.skipped.map((s) => s.reason)).toEqual([
      'importance 7 is not between 1.0 and 3.0',
      'no content',
      expect.stringMatching(/broken.json is not valid JSON/),
    ]);
    const stm = t.brain.transfer.export().stm;
    const gate = stm.find((s) => s.content.startsWith('Spread gate'))!;
    expect(gate).toMatchObject({
      agent: 'nova',
      categories: ['decisions', 'trading'],
      importance: 2.5,
    });
    const source = t.brain.messages.getMessage(gate.source_message_id!)!;
    expect(source.metadata.legacy_id).toBe('msg-0001');
    const ops = stm.find((s) => s.content.startsWith('Exchange'))!;
    expect(ops).toMatchObject({
      agent: 'cortex',
      categories: ['calendar', 'ops'],
      importance: 2,
      expires_at: '2025-06-08T17:48:20.000Z',
    });
    expect(t.brain.transfer.migrateCortex(join(fixtures, 'cortex'))).toMatchObject({
      imported: 0,
      existing: 3,
    });
  });

  it('explains unreadable files clearly', () => {
    const bad = join(t.dir, 'bad.json');
    writeFileSync(bad, '{"messages": [');
    expect(() => t.brain.transfer.migrateSynapse(bad)).toThrow(
      /synapse: .*bad.json is not valid JSON/,
    );
    writeFileSync(bad, '{"msgs": []}');
    expect(() => t.brain.transfer.migrateSynapse(bad)).toThrow(/has no "messages" array/);
    expect(() => t.brain.transfer.migrateSynapse(join(t.dir, 'missing.json'))).toThrow(
      /cannot read .*missing.json: no such file/,
    );
    expect(() => t.brain.transfer.migrateCortex(join(t.dir, 'missing'))).toThrow(
      /no file or directory/,
    );
  });
});
