import { afterEach, describe, expect, it } from 'vitest';
import { tempBrain, type TempBrain } from '../../helpers.js';

let t: TempBrain;
afterEach(() => t.cleanup());

describe('the scheduler’s storage', () => {
  it('claims a cron due time once; a second claim, even from another connection, gets nothing', async () => {
    t = await tempBrain();
    const run = t.brain.assistant.claimCronRun({ job: 'brief', due_at: '2026-05-04T06:00:00Z' });
    expect(run).toMatchObject({ job: 'brief', outcome: 'running', ended_at: null });
    expect(
      (await t.reopen()).assistant.claimCronRun({ job: 'brief', due_at: '2026-05-04T06:00:00Z' }),
    ).toBeUndefined();
    const done = t.brain.assistant.finishCronRun({ id: run!.id, outcome: 'ok', delivered: true });
    expect(done).toMatchObject({ outcome: 'ok', delivered: true });
    expect(done.ended_at).not.toBeNull();
    expect(t.brain.assistant.cronRuns({ job: 'brief' })).toEqual([done]);
  });

  it('fires a reminder once: the second claim of the same due time fails', async () => {
    t = await tempBrain();
    const r = t.brain.assistant.addReminder({ text: 'x', due_at: '2026-05-04T06:00:00Z' });
    expect(t.brain.assistant.fireReminder({ id: r.id, due_at: r.due_at })).toBe(true);
    expect((await t.reopen()).assistant.fireReminder({ id: r.id, due_at: r.due_at })).toBe(false);
    expect(t.brain.assistant.getReminder(r.id)).toMatchObject({ status: 'done' });
  });

  it('refuses bad input naming the field, and writes nothing', async () => {
    t = await tempBrain();
    expect(() =>
      t.brain.assistant.addReminder({ text: '', due_at: '2026-05-04T06:00:00Z' }),
    ).toThrow(/text: must not be empty/);
    expect(() => t.brain.assistant.addReminder({ text: 'x', due_at: 'soon' })).toThrow(
      /due_at: must be an ISO/,
    );
    expect(() => t.brain.assistant.addTask({ title: 'x', priority: 'urgent' as 'high' })).toThrow(
      /priority/,
    );
    expect(() => t.brain.assistant.addTask({ title: 'x', message_id: 'syn_000000000000' })).toThrow(
      /message_id: no message/,
    );
    expect(t.brain.assistant.reminders({ all: true })).toEqual([]);
    expect(t.brain.assistant.tasks({ status: 'all' })).toEqual([]);
  });

  it('keeps named values across connections, and initialises one only once', async () => {
    t = await tempBrain();
    expect(t.brain.assistant.schedulerState('email:inbox')).toBeUndefined();
    t.brain.assistant.setSchedulerState('email:inbox', { uidValidity: '7', lastUid: 3 });
    expect((await t.reopen()).assistant.schedulerState('email:inbox')).toEqual({
      uidValidity: '7',
      lastUid: 3,
    });
    expect(t.brain.assistant.initSchedulerState('since', 'a')).toBe('a');
    expect(t.brain.assistant.initSchedulerState('since', 'b')).toBe('a');
  });

  it('completes a task once and cancels a reminder once', async () => {
    t = await tempBrain();
    const task = t.brain.assistant.addTask({ title: 'x' });
    t.brain.assistant.completeTask(task.id);
    expect(() => t.brain.assistant.completeTask(task.id)).toThrow(/already done/);
    expect(() => t.brain.assistant.completeTask(99)).toThrow(/no task 99/);
    const r = t.brain.assistant.addReminder({ text: 'x', due_at: '2026-05-04T06:00:00Z' });
    t.brain.assistant.cancelReminder(r.id);
    expect(() => t.brain.assistant.cancelReminder(r.id)).toThrow(/already cancelled/);
  });
});
