import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixedClock, tempBrain, type TempBrain } from '../helpers.js';

let t: TempBrain;
let clock: ReturnType<typeof fixedClock>;
beforeEach(async () => {
  clock = fixedClock();
  t = await tempBrain({ clock });
});
afterEach(() => t.cleanup());

describe('remember', () => {
  it('stores categories, importance, expiry and source', () => {
    const msg = t.brain.messages.send({ from: 'helios', to: 'nova', subject: 's', body: 'x' });
    const s = t.brain.knowledge.remember({
      agent: 'nova',
      content: 'spread gate is useless',
      categories: ['Trading', 'meta', 'trading'],
      importance: 2.5,
      expires_at: '2026-02-01',
      source_message_id: msg.id,
    });
    expect(s).toMatchObject({
      agent: 'nova',
      categories: ['meta', 'trading'],
      importance: 2.5,
      expires_at: '2026-02-01T00:00:00.000Z',
      source_message_id: msg.id,
      access_count: 0,
    });
    expect(s.id).toMatch(/^stm_[0-9a-f]{12}$/);
  });

  it('rejects out-of-range importance, unknown sources and past expiry, writing nothing', () => {
    expect(() => t.brain.knowledge.remember({ agent: 'a', content: 'x', importance: 3.5 })).toThrow(
      /importance: must be between 1.0 and 3.0/,
    );
    expect(() =>
      t.brain.knowledge.remember({
        agent: 'a',
        content: 'x',
        source_message_id: 'syn_000000000000',
      }),
    ).toThrow(/source_message_id: no message/);
    expect(() =>
      t.brain.knowledge.remember({ agent: 'a', content: 'x', expires_at: '2025-01-01' }),
    ).toThrow(/expires_at: must be in the future/);
    expect(() =>
      t.brain.knowledge.remember({ agent: 'a', content: 'x', expires_at: 'tomorrow' }),
    ).toThrow(/expires_at: must be an ISO 8601 date/);
    expect(t.brain.knowledge.listStm({ include_expired: true })).toEqual([]);
    expect(t.brain.messages.listAgents()).toEqual([]);
  });

  it('counts an access each time an entry is returned, written when the brain flushes', () => {
    const s = t.brain.knowledge.remember({ agent: 'a', content: 'the spread gate is useless' });
    expect(t.brain.knowledge.listStm()[0]!.access_count).toBe(0); // what is written; this one is noted
    t.brain.search.search({ query: 'spread gate' });
    expect(t.brain.knowledge.getStm(s.id)!.access_count).toBe(0);
    expect(t.brain.upkeep.flushAccesses()).toBe(true);
    expect(t.brain.knowledge.getStm(s.id)!.access_count).toBe(2);
  });

  it('hides expired entries unless asked', () => {
    const gone = t.brain.knowledge.remember({
      agent: 'a',
      content: 'short lived',
      expires_at: '2026-01-01T01:00:00Z',
    });
    t.brain.knowledge.remember({ agent: 'a', content: 'long lived' });
    clock.tick(2 * 3_600_000);
    expect(t.brain.knowledge.listStm().map((s) => s.content)).toEqual(['long lived']);
    expect(t.brain.knowledge.listStm({ include_expired: true })).toHaveLength(2);
    expect(t.brain.search.search({ query: 'short lived' }).hits.map((h) => h.id)).not.toContain(
      gone.id,
    );
    expect(t.brain.search.search({ query: 'short' }).hits).toEqual([]);
  });

  it('filters by category through the join table', () => {
    t.brain.knowledge.remember({ agent: 'a', content: 'one', categories: ['x'] });
    t.brain.knowledge.remember({ agent: 'a', content: 'two', categories: ['y'] });
    expect(t.brain.knowledge.listStm({ category: 'y' }).map((s) => s.content)).toEqual(['two']);
  });
});

describe('atoms', () => {
  function atom(subject: string) {
    return t.brain.knowledge.createAtom({ agent: 'nova', subject, action: 'a', outcome: 'o' });
  }

  it('creates atoms with defaults and validation', () => {
    const a = t.brain.knowledge.createAtom({
      agent: 'nova',
      subject: 's',
      action: 'a',
      outcome: 'o',
      consequences: 'c',
      confidence: 0.9,
    });
    expect(a).toMatchObject({
      subject: 's',
      consequences: 'c',
      confidence: 0.9,
      source_message_id: null,
    });
    expect(a.id).toMatch(/^atm_[0-9a-f]{12}$/);
    expect(() =>
      t.brain.knowledge.createAtom({
        agent: 'nova',
        subject: 's',
        action: 'a',
        outcome: 'o',
        confidence: 2,
      }),
    ).toThrow(/confidence: must be between 0 and 1/);
    expect(() =>
      t.brain.knowledge.createAtom({ agent: 'nova', subject: 's', action: 'a' } as never),
    ).toThrow(/outcome: is required/);
  });

  it('links atoms (re-linking updates strength) and walks chains both ways to a depth', () => {
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map(atom) as [
      ReturnType<typeof atom>,
      ReturnType<typeof atom>,
      ReturnType<typeof atom>,
      ReturnType<typeof atom>,
    ];
    t.brain.knowledge.link({ from: a.id, to: b.id, type: 'causes', strength: 0.2 });
    expect(
      t.brain.knowledge.link({ from: a.id, to: b.id, type: 'causes', strength: 0.7 }).strength,
    ).toBe(0.7);
    t.brain.knowledge.link({ from: b.id, to: c.id, type: 'enables' });
    t.brain.knowledge.link({ from: c.id, to: d.id, type: 'precedes' });
    t.brain.knowledge.link({ from: d.id, to: a.id, type: 'correlates' }); // a cycle must not loop

    const forward = t.brain.knowledge.chain({ atom_id: a.id, direction: 'forward', depth: 2 });
    expect(forward.steps.map((s) => [s.atom.subject, s.depth, s.link.type])).toEqual([
      ['b', 1, 'causes'],
      ['c', 2, 'enables'],
    ]);
    const backward = t.brain.knowledge.chain({ atom_id: c.id, direction: 'backward', depth: 5 });
    expect(backward.steps.map((s) => [s.atom.subject, s.depth])).toEqual([
      ['b', -1],
      ['a', -2],
      ['d', -3],
    ]);
    expect(() => t.brain.knowledge.link({ from: a.id, to: a.id })).toThrow(/itself/);
    expect(() => t.brain.knowledge.link({ from: a.id, to: 'atm_000000000000' })).toThrow(
      /to: no atom/,
    );
    expect(() => t.brain.knowledge.link({ from: a.id, to: b.id, type: 'blocks' as never })).toThrow(
      /type: must be one of/,
    );
  });
});

describe('provenance', () => {
  it('goes from knowledge to its source message, thread, sender and time — and back', () => {
    const first = t.brain.messages.send({
      from: 'helios',
      to: 'nova',
      subject: 'spread gate',
      body: 'context before',
    });
    clock.tick();
    const source = t.brain.messages.send({
      from: 'helios',
      to: 'nova',
      body: 'zero predictive power',
      thread: first.thread_id,
    });
    clock.tick();
    const after = t.brain.messages.send({
      from: 'nova',
      to: 'helios',
      body: 'agreed',
      thread: first.thread_id,
    });
    const s = t.brain.knowledge.remember({
      agent: 'nova',
      content: 'drop the gate',
      source_message_id: source.id,
    });
    const a = t.brain.knowledge.createAtom({
      agent: 'nova',
      subject: 'gate',
      action: 'filter',
      outcome: 'none',
      source_message_id: source.id,
    });

    const p = t.brain.knowledge.provenance({ id: s.id });
    expect(p.knowledge).toMatchObject({ type: 'stm', record: { id: s.id } });
    expect(p.message).toMatchObject({
      id: source.id,
      from: 'helios',
      created_at: source.created_at,
    });
    expect(p.thread).toMatchObject({ id: first.thread_id, subject: 'spread gate' });
    expect(p.context.map((m) => m.id)).toEqual([first.id, source.id, after.id]);

    const back = t.brain.knowledge.provenance({ id: source.id });
    expect(back.type).toBe('message');
    expect(back.derived.stm.map((x) => x.id)).toEqual([s.id]);
    expect(back.derived.atoms.map((x) => x.id)).toEqual([a.id]);
    expect(t.brain.knowledge.provenance({ id: a.id }).message!.id).toBe(source.id);
  });

  it('says plainly when knowledge has no source, and errors on unknown ids', () => {
    const s = t.brain.knowledge.remember({ agent: 'a', content: 'free-standing' });
    expect(t.brain.knowledge.provenance({ id: s.id })).toMatchObject({
      message: null,
      thread: null,
      context: [],
    });
    expect(() => t.brain.knowledge.provenance({ id: 'stm_000000000000' })).toThrow(/no STM entry/);
    expect(() => t.brain.knowledge.provenance({ id: 'thr_x' })).toThrow(
      /id: must be a message, STM or atom id/,
    );
  });
});

describe('recent', () => {
  it('returns everything of the last N hours, newest first', () => {
    t.brain.messages.send({ from: 'a', to: 'b', body: 'old' });
    clock.tick(5 * 3_600_000);
    t.brain.messages.send({ from: 'a', to: 'b', body: 'new message' });
    clock.tick(1000);
    t.brain.knowledge.remember({ agent: 'a', content: 'new memory' });
    clock.tick(1000);
    t.brain.knowledge.createAtom({ agent: 'a', subject: 'new atom', action: 'x', outcome: 'y' });
    const items = t.brain.search.recent({ hours: 1 });
    expect(items.map((i) => i.type)).toEqual(['atom', 'stm', 'message']);
    expect(t.brain.search.recent({ hours: 6 })).toHaveLength(4);
    expect(t.brain.search.recent({ hours: 6, types: ['message'] })).toHaveLength(2);
    expect(() => t.brain.search.recent({ hours: 0 })).toThrow(/hours: must be more than 0/);
  });
});
