import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openBrain, type Brain } from '../../../src/index.js';
import { fixedClock, tempBrain, tempDir, type TempBrain } from '../../helpers.js';
import { downgrade } from '../../downgrade.js';

let t: TempBrain | undefined;
let other: { dir: string; brain?: Brain; cleanup: () => void } | undefined;
afterEach(() => {
  t?.cleanup();
  other?.brain?.close();
  other?.cleanup();
  t = undefined;
  other = undefined;
});

describe('the owner target (migration 0012)', () => {
  it('keeps the last place the owner spoke per assistant, replaced by the next, seen by another connection', async () => {
    const clock = fixedClock('2026-03-01T10:00:00.000Z');
    t = await tempBrain({ clock });
    expect(t.brain.assistant.ownerTarget('assistant')).toBeNull();
    t.brain.assistant.setOwnerTarget({ agent: 'assistant', channel: 'telegram', chat_id: '42' });
    clock.tick(60_000);
    t.brain.assistant.setOwnerTarget({ agent: 'assistant', channel: 'discord', chat_id: '555' });
    t.brain.assistant.setOwnerTarget({ agent: 'helper', channel: 'telegram', chat_id: '7' });
    expect((await t.reopen()).assistant.ownerTarget('assistant')).toEqual({
      agent: 'assistant',
      channel: 'discord',
      chat_id: '555',
      updated_at: '2026-03-01T10:01:00.000Z',
    });
    expect(t.brain.assistant.ownerTarget('helper')?.chat_id).toBe('7');
  });

  it('refuses a bad channel or an empty chat id, naming the field, and changes nothing', async () => {
    t = await tempBrain();
    t.brain.assistant.setOwnerTarget({ agent: 'assistant', channel: 'telegram', chat_id: '42' });
    expect(() =>
      t!.brain.assistant.setOwnerTarget({ agent: 'assistant', channel: 'Tele gram', chat_id: '1' }),
    ).toThrow(/channel/);
    expect(() =>
      t!.brain.assistant.setOwnerTarget({ agent: 'assistant', channel: 'discord', chat_id: '' }),
    ).toThrow(/chat_id/);
    expect(t.brain.assistant.ownerTarget('assistant')?.chat_id).toBe('42');
  });

  it('adds the table to a version 11 brain', async () => {
    other = tempDir();
    const path = join(other.dir, 'v11.db');
    (await openBrain({ dbPath: path })).close();
    downgrade(path, 11);
    other.brain = await openBrain({ dbPath: path });
    other.brain.assistant.setOwnerTarget({ agent: 'assistant', channel: 'telegram', chat_id: '1' });
    expect(other.brain.assistant.ownerTarget('assistant')?.channel).toBe('telegram');
  });
});
