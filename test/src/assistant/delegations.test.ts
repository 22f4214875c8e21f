import { spawnSync } from 'node:child_process';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { tempBrain, type TempBrain } from '../../helpers.js';

let t: TempBrain;
afterEach(() => t.cleanup());

const task = { session: 'chat/default', task: 'Count the invoices', tools: ['search_memory'] };

describe('delegated tasks in the brain', () => {
  it('keeps a task from start to end, and ends it once', async () => {
    t = await tempBrain();
    const started = t.brain.assistant.startDelegation({ ...task, wait: false, depth: 1 });
    expect(started).toMatchObject({ status: 'running', wait: false, tools: ['search_memory'] });
    expect(t.brain.assistant.delegations({ running: true })).toEqual([started]);

    const done = t.brain.assistant.finishDelegation({
      id: started.id,
      status: 'done',
      result: '7',
    });
    expect(done).toMatchObject({ status: 'done', result: '7' });
    expect(done.ended_at).not.toBeNull();
    expect(t.brain.assistant.delegations({ running: true })).toEqual([]);
    expect(() =>
      t.brain.assistant.finishDelegation({ id: started.id, status: 'cancelled', result: '' }),
    ).toThrow(/has ended already/);
    expect(t.brain.assistant.getDelegation(started.id)?.status).toBe('done');
  });

  it('reads a task left running by a process that ended as interrupted', async () => {
    t = await tempBrain();
    const started = t.brain.assistant.startDelegation({ ...task, wait: true, depth: 1 });
    const gone = spawnSync(process.execPath, ['-e', '']).pid!;
    const db = new BetterSqlite3(t.path);
    db.prepare(`UPDATE delegated_tasks SET pid = ? WHERE id = ?`).run(gone, started.id);
    db.close();

    expect(t.brain.assistant.getDelegation(started.id)?.status).toBe('interrupted');
    expect(t.brain.assistant.delegations({ running: true })).toEqual([]);
  });

  it('refuses bad input naming the field, and writes nothing', async () => {
    t = await tempBrain();
    expect(() =>
      t.brain.assistant.startDelegation({ ...task, task: ' ', wait: true, depth: 1 }),
    ).toThrow(/task: must not be empty/);
    expect(() => t.brain.assistant.startDelegation({ ...task, wait: true, depth: 0 })).toThrow(
      /depth:/,
    );
    expect(t.brain.assistant.delegations()).toEqual([]);
  });
});
