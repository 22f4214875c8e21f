import { connectionOf } from '../../../src/brain.js';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { latestVersion, openBrain, type Brain } from '../../../src/index.js';
import { tempDir } from '../../helpers.js';

/** What migration 0015 adds, taken away again to make an older brain. */
const UNDO_0015 =
  'DROP TRIGGER messages_count_sent; DROP TRIGGER messages_uncount_sent; DROP TRIGGER deliveries_count_received; DROP TRIGGER deliveries_uncount_received; DROP TRIGGER deliveries_log_read; DROP TRIGGER acks_log; DROP TABLE agent_counts; DROP TABLE receipt_log; DROP INDEX messages_by_sender;';

let dir: { dir: string; cleanup: () => void } | undefined;
let brain: Brain | undefined;
afterEach(() => {
  brain?.close();
  dir?.cleanup();
  brain = undefined;
  dir = undefined;
});

describe('migration 0010: the assistant’s tables', () => {
  it('adds sessions, leases and usage to a version 9 brain, keeping its messages', () => {
    dir = tempDir();
    const path = join(dir.dir, 'v8.db');
    // A version 9 brain: today's schema without what migrations 0010 to 0013 add.
    const made = openBrain({ dbPath: path });
    const sent = made.send({ from: 'ada', to: 'assistant', body: 'before the upgrade' });
    made.close();
    const old = new BetterSqlite3(path);
    old.exec(
      `DROP TABLE scheduler_state; DROP TABLE tasks; DROP TABLE reminders; DROP TABLE cron_runs;
       DROP TABLE pairings; DROP TABLE owner_targets; DROP TABLE approvals; DROP TABLE approval_rules;
       DROP TABLE model_usage; DROP TABLE leases; DROP TABLE session_threads; DROP TABLE sessions;
       ${UNDO_0015}`,
    );
    old.pragma('user_version = 9');
    old.close();

    brain = openBrain({ dbPath: path });
    expect(connectionOf(brain).pragma('user_version', { simple: true })).toBe(latestVersion());
    expect(brain.getMessage(sent.id)?.body).toBe('before the upgrade');
    const s = brain.session({ name: 'chat/default', agent: 'assistant', owner: 'ada' });
    expect(s.threads).toBe(1);
    brain.recordUsage({
      source: 'chat',
      model: 'm',
      endpoint: 'e',
      input_tokens: 1,
      output_tokens: 1,
      message_id: sent.id,
    });
    expect(brain.usage()).toHaveLength(1);
    expect(brain.recordApproval({ tool: 't', args: {}, decision: 'pending' }).id).toBe(1);
  });

  it('stores times as integer milliseconds and refuses text', () => {
    dir = tempDir();
    brain = openBrain({ dbPath: join(dir.dir, 'b.db') });
    expect(() =>
      connectionOf(brain!)
        .prepare(
          `INSERT INTO leases (key, pid, host, label, acquired_at, expires_at) VALUES ('k', 1, 'h', '', '2026-01-01', 0)`,
        )
        .run(),
    ).toThrow(/CHECK constraint failed/);
    expect(
      connectionOf(brain)
        .prepare(`SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'model_usage'`)
        .pluck()
        .all(),
    ).toEqual(['model_usage_by_time']);
  });
});
