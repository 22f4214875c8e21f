import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openBrain, type Brain } from '../../../src/index.js';
import { fixedClock, tempBrain, tempDir, type TempBrain } from '../../helpers.js';

/** What migration 0015 adds, taken away again to make an older brain. */
const UNDO_0015 =
  'DROP TRIGGER messages_count_sent; DROP TRIGGER messages_uncount_sent; DROP TRIGGER deliveries_count_received; DROP TRIGGER deliveries_uncount_received; DROP TRIGGER deliveries_log_read; DROP TRIGGER acks_log; DROP TABLE agent_counts; DROP TABLE receipt_log; DROP INDEX messages_by_sender;';

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
  it('keeps the last place the owner spoke per assistant, replaced by the next, seen by another connection', () => {
    const clock = fixedClock('2026-03-01T10:00:00.000Z');
    t = tempBrain({ clock });
    expect(t.brain.ownerTarget('assistant')).toBeNull();
    t.brain.setOwnerTarget({ agent: 'assistant', channel: 'telegram', chat_id: '42' });
    clock.tick(60_000);
    t.brain.setOwnerTarget({ agent: 'assistant', channel: 'discord', chat_id: '555' });
    t.brain.setOwnerTarget({ agent: 'helper', channel: 'telegram', chat_id: '7' });
    expect(t.reopen().ownerTarget('assistant')).toEqual({
      agent: 'assistant',
      channel: 'discord',
      chat_id: '555',
      updated_at: '2026-03-01T10:01:00.000Z',
    });
    expect(t.brain.ownerTarget('helper')?.chat_id).toBe('7');
  });

  it('refuses a bad channel or an empty chat id, naming the field, and changes nothing', () => {
    t = tempBrain();
    t.brain.setOwnerTarget({ agent: 'assistant', channel: 'telegram', chat_id: '42' });
    expect(() =>
      t!.brain.setOwnerTarget({ agent: 'assistant', channel: 'Tele gram', chat_id: '1' }),
    ).toThrow(/channel/);
    expect(() =>
      t!.brain.setOwnerTarget({ agent: 'assistant', channel: 'discord', chat_id: '' }),
    ).toThrow(/chat_id/);
    expect(t.brain.ownerTarget('assistant')?.chat_id).toBe('42');
  });

  it('adds the table to a version 11 brain', () => {
    other = tempDir();
    const path = join(other.dir, 'v11.db');
    openBrain({ dbPath: path }).close();
    const old = new BetterSqlite3(path);
    old.exec(
      'DROP TABLE scheduler_state; DROP TABLE tasks; DROP TABLE reminders; DROP TABLE cron_runs; DROP TABLE pairings; DROP TABLE owner_targets; ' +
        UNDO_0015,
    );
    old.pragma('user_version = 11');
    old.close();
    other.brain = openBrain({ dbPath: path });
    other.brain.setOwnerTarget({ agent: 'assistant', channel: 'telegram', chat_id: '1' });
    expect(other.brain.ownerTarget('assistant')?.channel).toBe('telegram');
  });
});
