import { connectionOf } from '../../../src/brain.js';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { latestVersion, openBrain, type Brain } from '../../../src/index.js';
import { tempDir } from '../../helpers.js';
import { downgrade } from '../../downgrade.js';

let dir: { dir: string; cleanup: () => void } | undefined;
let brain: Brain | undefined;
afterEach(() => {
  brain?.close();
  dir?.cleanup();
  brain = undefined;
  dir = undefined;
});

describe('migration 0010: the assistant’s tables', () => {
  it('adds sessions, leases and usage to a version 9 brain, keeping its messages', async () => {
    dir = tempDir();
    const path = join(dir.dir, 'v8.db');
    // A version 9 brain: today's schema without what the later migrations add.
    const made = await openBrain({ dbPath: path });
    const sent = made.messages.send({ from: 'ada', to: 'assistant', body: 'before the upgrade' });
    made.close();
    downgrade(path, 9);

    brain = await openBrain({ dbPath: path });
    expect(connectionOf(brain).pragma('user_version', { simple: true })).toBe(latestVersion());
    expect(brain.messages.getMessage(sent.id)?.body).toBe('before the upgrade');
    const s = brain.assistant.session({ name: 'chat/default', agent: 'assistant', owner: 'ada' });
    expect(s.threads).toBe(1);
    brain.assistant.recordUsage({
      source: 'chat',
      model: 'm',
      endpoint: 'e',
      input_tokens: 1,
      output_tokens: 1,
      message_id: sent.id,
    });
    expect(brain.assistant.usage()).toHaveLength(1);
    expect(brain.assistant.recordApproval({ tool: 't', args: {}, decision: 'pending' }).id).toBe(1);
  });

  it('stores times as integer milliseconds and refuses text', async () => {
    dir = tempDir();
    brain = await openBrain({ dbPath: join(dir.dir, 'b.db') });
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
