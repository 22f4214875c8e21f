import { afterEach, describe, expect, it } from 'vitest';
import { PAIRING_ALPHABET, PAIRING_TTL_MS } from '../../../src/index.js';
import { fixedClock, tempBrain, type TempBrain } from '../../helpers.js';
import { downgrade } from '../../downgrade.js';

let t: TempBrain | undefined;
afterEach(() => t?.cleanup());

async function setup() {
  const clock = fixedClock();
  t = await tempBrain({ clock });
  return { brain: t.brain, clock };
}

const ask = (brain: TempBrain['brain'], user: string) =>
  brain.assistant.requestPairing({ channel: 'telegram', user_id: user, name: `user ${user}` });

describe('pairing requests', () => {
  it('gives an 8-character code from an alphabet without look-alikes, the same one while it is valid', async () => {
    const { brain } = await setup();
    const first = ask(brain, '7');
    expect(first).toMatchObject({ status: 'pending', created: true });
    const code = (first as { code: string }).code;
    expect(code).toMatch(/^[A-HJKMNP-Z2-9]{8}$/);
    for (const c of code) expect(PAIRING_ALPHABET).toContain(c);
    expect(PAIRING_ALPHABET).not.toMatch(/[01OIL]/);
    expect(ask(brain, '7')).toMatchObject({ status: 'pending', code, created: false });
  });

  it('keeps at most three requests waiting; an expired one frees its place', async () => {
    const { brain, clock } = await setup();
    for (const u of ['1', '2', '3']) expect(ask(brain, u).status).toBe('pending');
    expect(ask(brain, '4')).toEqual({ status: 'full' });
    clock.tick(PAIRING_TTL_MS + 1);
    expect(brain.assistant.pairings()).toEqual([]);
    expect(ask(brain, '4')).toMatchObject({ status: 'pending', created: true });
  });

  it('lets the owner approve a valid code (any case) and then the sender is paired', async () => {
    const { brain } = await setup();
    const { code } = ask(brain, '9') as { code: string };
    expect(brain.assistant.isPaired({ channel: 'telegram', user_id: '9' })).toBe(false);
    const decided = brain.assistant.decidePairing({
      code: code.toLowerCase(),
      decision: 'approve',
    });
    expect(decided).toMatchObject({ user_id: '9', status: 'approved', name: 'user 9' });
    expect(brain.assistant.isPaired({ channel: 'telegram', user_id: '9' })).toBe(true);
    expect(ask(brain, '9')).toEqual({ status: 'approved' });
    expect(brain.assistant.pairings().map((p) => p.status)).toEqual(['approved']);
  });

  it('refuses an expired or unknown code and a denied sender gets nothing more', async () => {
    const { brain, clock } = await setup();
    const { code } = ask(brain, '5') as { code: string };
    clock.tick(PAIRING_TTL_MS);
    expect(() => brain.assistant.decidePairing({ code, decision: 'approve' })).toThrow(
      /code: no pending/,
    );
    expect(brain.assistant.isPaired({ channel: 'telegram', user_id: '5' })).toBe(false);
    const again = ask(brain, '5') as { code: string };
    brain.assistant.decidePairing({ code: again.code, decision: 'deny' });
    expect(ask(brain, '5')).toEqual({ status: 'denied' });
    expect(brain.assistant.isPaired({ channel: 'telegram', user_id: '5' })).toBe(false);
    expect(() => brain.assistant.decidePairing({ code: 'O0I1L000', decision: 'approve' })).toThrow(
      /code: must be a pairing code/,
    );
  });
});

describe('migration 0013', () => {
  it('adds the pairings table to a version 12 brain', async () => {
    t = await tempBrain();
    const path = t.path;
    t.brain.close();
    downgrade(path, 12);
    const reopened = await t.reopen();
    expect(reopened.assistant.requestPairing({ channel: 'telegram', user_id: '1' }).status).toBe(
      'pending',
    );
    expect(reopened.assistant.pairings()).toHaveLength(1);
  });
});
