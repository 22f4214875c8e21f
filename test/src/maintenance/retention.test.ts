import { afterEach, describe, expect, it } from 'vitest';
import type { RetentionPolicy } from '../../../src/index.js';
import { fixedClock, tempBrain, type TempBrain } from '../../helpers.js';

const DAY = 86_400_000;

let t: TempBrain | undefined;
afterEach(() => {
  t?.cleanup();
  t = undefined;
});

/** A brain with threads last written 40, 20 and 5 days before "now" (2026-03-01), tagged. */
async function brainWithIdleThreads() {
  const clock = fixedClock('2026-01-20T12:00:00.000Z');
  t = await tempBrain({ clock });
  const send = (subject: string) =>
    t!.brain.messages.send({ from: 'helios', to: 'nova', subject, body: `about ${subject} fees` });
  const old = send('old'); // 2026-01-20: 40 days idle on 2026-03-01
  const kept = send('kept'); // same age, tagged keep
  const ops = send('ops'); // same age, tagged ops (archived after 60 days)
  clock.tick(20 * DAY);
  const middle = send('middle'); // 2026-02-09: 20 days idle
  clock.tick(15 * DAY);
  const fresh = send('fresh'); // 2026-02-24: 5 days idle
  clock.tick(5 * DAY);
  t.brain.messages.tagThread({ thread_id: kept.thread_id, add: ['keep'] });
  t.brain.messages.tagThread({ thread_id: ops.thread_id, add: ['ops'] });
  return { clock, old, kept, ops, middle, fresh };
}

const policy: RetentionPolicy = {
  archiveAfterDays: 30,
  closeArchivedAfterDays: 90,
  tags: { keep: { archiveAfterDays: null }, ops: { archiveAfterDays: 60 } },
};

describe('retention', () => {
  it('archives threads idle past the limit, per tag, and deletes nothing', async () => {
    const { clock, old, kept, ops, middle, fresh } = await brainWithIdleThreads();
    const status = (id: string) => t!.brain.messages.getThread(id)!.status;
    const messagesBefore = t!.brain.messages.threads({}).length;

    const result = t!.brain.upkeep.maintain({ retention: policy });
    expect(result.retention).toEqual({ archived: 1, closed: 0 });
    expect(status(old.thread_id)).toBe('archived');
    expect(status(kept.thread_id)).toBe('active'); // its tag says never
    expect(status(ops.thread_id)).toBe('active'); // its tag waits 60 days
    expect(status(middle.thread_id)).toBe('active');
    expect(status(fresh.thread_id)).toBe('active');

    // Ten days later: middle reaches 30 days; a minute has passed, so the policy runs again.
    clock.tick(10 * DAY);
    expect(t!.brain.upkeep.maintain({ retention: policy }).retention).toEqual({
      archived: 1,
      closed: 0,
    });
    expect(status(middle.thread_id)).toBe('archived');
    // Within the minute it does not run again.
    clock.tick(1000);
    expect(t!.brain.upkeep.maintain({ retention: policy }).retention).toBeUndefined();

    // 90 days after its last message, the archived thread is closed; ops archived at 60.
    clock.tick(40 * DAY);
    expect(t!.brain.upkeep.maintain({ retention: policy }).retention).toEqual({
      archived: 2, // ops (60 days) and fresh (30 days)
      closed: 1,
    });
    expect(status(old.thread_id)).toBe('closed');
    expect(status(ops.thread_id)).toBe('archived');

    // Never deleted: every thread and message is still there, and still found by search.
    expect(t!.brain.messages.threads({})).toHaveLength(messagesBefore);
    const hits = t!.brain.search.search({ query: 'old fees', types: ['message'] });
    expect(hits.hits.map((h) => h.id)).toContain(old.id);
    // Listing by status hides them when asked.
    expect(t!.brain.messages.threads({ status: 'active' }).map((x) => x.id)).toEqual([
      kept.thread_id,
    ]);
  });

  it('leaves a thread that got a message after the plan was read, and a new message revives it', async () => {
    const { old } = await brainWithIdleThreads();
    t!.brain.upkeep.maintain({ retention: policy });
    expect(t!.brain.messages.getThread(old.thread_id)!.status).toBe('archived');
    t!.brain.messages.send({ from: 'nova', to: 'helios', thread: old.thread_id, body: 'back' });
    expect(t!.brain.messages.getThread(old.thread_id)!.status).toBe('active');
  });

  it('plans what it will do now and next, with the tag whose limit applies', async () => {
    const { old, middle, ops } = await brainWithIdleThreads();
    const plan = await t!.brain.upkeep.retentionPlan(policy, 24);
    expect(plan.due.map((s) => [s.action, s.thread_id, s.tag])).toEqual([
      ['archive', old.thread_id, null],
    ]);
    expect(plan.upcoming.map((s) => [s.action, s.thread_id, s.due_at, s.tag])).toEqual([
      ['archive', middle.thread_id, '2026-03-11T12:00:00.000Z', null],
      ['archive', ops.thread_id, '2026-03-21T12:00:00.000Z', 'ops'],
    ]);
    // A plan reads only: nothing changed.
    expect(t!.brain.messages.getThread(old.thread_id)!.status).toBe('active');
  });
});
