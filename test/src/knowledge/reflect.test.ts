import { afterEach, describe, expect, it } from 'vitest';
import { BrainError } from '../../../src/index.js';
import type { Extractor } from '../../../src/knowledge/extract/types.js';
import { fixedClock, tempBrain, type TempBrain } from '../../helpers.js';

const DAY = 86_400_000;

let t: TempBrain;
afterEach(() => t?.cleanup());

async function brainAt() {
  const clock = fixedClock('2026-03-01T09:00:00.000Z');
  t = await tempBrain({ clock });
  return { brain: t.brain, clock };
}

/** Each message body as one entry of the given category (importance 1), keyed by nothing. */
function echo(category: 'fact' | 'commitment' = 'fact'): Extractor {
  return {
    name: 'echo',
    version: 1,
    async extract(turn) {
      return [{ content: turn.body, category, importance: 1, sources: [turn.id] }];
    },
  };
}

describe('reflection', () => {
  it('merges an entry saying what an older one says, and undoing puts both back', async () => {
    const { brain, clock } = await brainAt();
    const m = brain.messages.send({ from: 'ana', to: 'bo', body: 'the hub runs on SQLite' });
    const older = brain.knowledge.remember({
      agent: 'ana',
      content: 'The hub runs on SQLite in WAL mode',
      importance: 1,
    });
    clock.tick(1000);
    const newer = brain.knowledge.remember({
      agent: 'bo',
      content: 'the hub runs on SQLite in WAL mode',
      importance: 2,
      source_message_id: m.id,
    });
    const result = brain.knowledge.reflect();
    expect(result).toMatchObject({ considered: 2, merged: 1, raised: 0, expired: 0 });
    expect(result.changes).toMatchObject([{ kind: 'merge', stm: newer.id, into: older.id }]);
    // The older entry holds the newer's source and importance; the newer is superseded.
    const merged = brain.knowledge.provenance({ id: m.id }).derived.stm.map((s) => s.id);
    expect(merged.sort()).toEqual([older.id, newer.id].sort());
    expect(brain.knowledge.getStm(older.id)?.importance).toBe(2);
    expect(brain.knowledge.listStm().map((s) => s.id)).toEqual([older.id]);

    brain.knowledge.undoChange(result.changes[0]!.id);
    expect(brain.knowledge.getStm(older.id)?.importance).toBe(1);
    expect(brain.knowledge.provenance({ id: m.id }).derived.stm.map((s) => s.id)).toEqual([
      newer.id,
    ]);
    expect(
      brain.knowledge
        .listStm()
        .map((s) => s.id)
        .sort(),
    ).toEqual([older.id, newer.id].sort());
    expect(() => brain.knowledge.undoChange(result.changes[0]!.id)).toThrow(/undone already/);
    expect(() => brain.knowledge.undoChange(999)).toThrow(BrainError);
    // The next reflection looks only at what was learned since: the pair is not merged again.
    clock.tick(1000);
    expect(brain.knowledge.reflect()).toMatchObject({ considered: 0, merged: 0 });
  });

  it('raises an entry that keeps coming back, once, and undoes it', async () => {
    const { brain, clock } = await brainAt();
    for (let i = 0; i < 3; i++)
      brain.messages.send({
        from: 'ana',
        to: 'bo',
        subject: `s${i}`,
        body: 'Deploys freeze on Fridays',
      });
    await brain.knowledge.extract(echo());
    const [entry] = brain.knowledge.insights();
    expect(entry!.sources).toHaveLength(3);
    clock.tick(1000);
    const first = brain.knowledge.reflect();
    expect(first).toMatchObject({ raised: 1 });
    expect(brain.knowledge.getStm(entry!.id)?.importance).toBe(1.5);
    clock.tick(1000);
    brain.messages.send({
      from: 'bo',
      to: 'ana',
      subject: 's4',
      body: 'Deploys freeze on Fridays',
    });
    await brain.knowledge.extract(echo());
    expect(brain.knowledge.reflect()).toMatchObject({ raised: 0 });
    const change = brain.knowledge.knowledgeChanges().find((c) => c.kind === 'importance')!;
    brain.knowledge.undoChange(change.id);
    expect(brain.knowledge.getStm(entry!.id)?.importance).toBe(1);
  });

  it('lets stale extracted entries lapse, keeps what agents stated, and proposes follow-ups once', async () => {
    const { brain, clock } = await brainAt();
    brain.messages.send({ from: 'ana', to: 'bo', body: 'The printer is on floor two' });
    await brain.knowledge.extract(echo());
    const stated = brain.knowledge.remember({ agent: 'ana', content: 'Ana likes tea' });
    clock.tick(100 * DAY);
    brain.messages.send({ from: 'bo', to: 'ana', body: 'I will send the report to Ana' });
    await brain.knowledge.extract(echo('commitment'));
    clock.tick(5 * DAY);

    const dry = brain.knowledge.reflect({ dryRun: true });
    expect(dry).toMatchObject({ expired: 1 });
    expect(brain.knowledge.knowledgeChanges()).toEqual([]);
    expect(brain.knowledge.insights()).toHaveLength(2);

    const result = brain.knowledge.reflect();
    expect(result.expired).toBe(1);
    expect(result.follow_ups).toMatchObject([
      { content: 'I will send the report to Ana', agent: 'bo' },
    ]);
    expect(brain.knowledge.insights().map((i) => i.content)).toEqual([
      'I will send the report to Ana',
    ]);
    expect(brain.knowledge.getStm(stated.id)?.expires_at).toBeNull();
    clock.tick(DAY);
    expect(brain.knowledge.reflect().follow_ups).toEqual([]);

    const expire = result.changes.find((c) => c.kind === 'expire')!;
    expect(expire.reason).toMatch(/never read/);
    brain.knowledge.undoChange(expire.id);
    expect(brain.knowledge.insights()).toHaveLength(2);
  });
});
