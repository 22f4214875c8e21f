import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createCronComponent } from '../../../agent/scheduler/cron.js';
import { tempDir } from '../../helpers.js';
import type { FakeAnthropic } from '../../fakes/anthropic.js';
import {
  FAKE_TIMERS,
  fakeModel,
  startInstance,
  until,
  writeConfig,
  type Instance,
} from './harness.js';

let fake: FakeAnthropic;
let dir: string;
let cleanup: () => void;
const instances: Instance[] = [];

beforeEach(async () => {
  ({ dir, cleanup } = tempDir('brain-cron-'));
  fake = await fakeModel();
});
afterEach(async () => {
  for (const i of instances.splice(0)) await i.stop().catch(() => {});
  vi.useRealTimers();
  await fake.close();
  cleanup();
});

async function instance(extra: Record<string, unknown>) {
  const config = writeConfig(dir, fake, extra);
  const i = await startInstance({ dir, config });
  instances.push(i);
  return i;
}

const job = (schedule: string, more: Record<string, unknown> = {}) => ({
  cron: [{ name: 'brief', schedule, timezone: 'Europe/Berlin', message: 'Morning brief', ...more }],
});

describe('cron jobs', { timeout: 30_000 }, () => {
  it('runs a 02:30 Berlin job once on the spring-forward day (at 03:00, the first valid time) and once on the autumn day with its repeated hour', async () => {
    vi.useFakeTimers({ ...FAKE_TIMERS, now: new Date('2026-03-28T12:00:00Z') });
    fake.fallback = () => ({ text: 'brief done' });
    const i = await instance(job('30 2 * * *'));
    await i.start(createCronComponent());
    await vi.advanceTimersByTimeAsync(26 * 3_600_000); // to 2026-03-29 14:00Z
    await until(() => i.brain.assistant.cronRuns({ job: 'brief' }).some((r) => r.outcome === 'ok'));
    const spring = i.brain.assistant.cronRuns({ job: 'brief' });
    expect(spring).toHaveLength(1);
    // 02:30 does not exist that night in Berlin: the run is the first valid time after the gap.
    expect(spring[0]!.due_at).toBe('2026-03-29T01:00:00.000Z');
    await i.stop();
    instances.splice(0);

    vi.setSystemTime(new Date('2026-10-24T12:00:00Z'));
    const j = await instance(job('30 2 * * *'));
    await j.start(createCronComponent());
    await vi.advanceTimersByTimeAsync(26 * 3_600_000); // to 2026-10-25 14:00Z, 02:30 happens twice
    await until(
      () =>
        j.brain.assistant.cronRuns({ job: 'brief' }).filter((r) => r.outcome === 'ok').length >= 2,
    );
    // The night before was missed while down (recorded skipped); the 25th ran once, at the
    // first of its two 02:30s.
    const autumn = j.brain.assistant
      .cronRuns({ job: 'brief' })
      .filter((r) => r.due_at >= '2026-10-24');
    expect(autumn.map((r) => [r.due_at, r.outcome])).toEqual([
      ['2026-10-25T00:30:00.000Z', 'ok'],
      ['2026-10-24T00:30:00.000Z', 'skipped'],
    ]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(
      j.brain.assistant.cronRuns({ job: 'brief' }).filter((r) => r.outcome === 'ok'),
    ).toHaveLength(2);
  });

  it('records a run with its start, end, outcome and delivery, and delivers the reply to deliverTo', async () => {
    vi.useFakeTimers({ ...FAKE_TIMERS, now: new Date('2026-05-04T05:59:00Z') });
    fake.fallback = () => ({ text: 'Your day: two meetings.' });
    const i = await instance(job('0 8 * * *', { deliverTo: 'telegram:42' }));
    await i.start(createCronComponent());
    await vi.advanceTimersByTimeAsync(61_000);
    await until(() => i.brain.assistant.cronRuns({ job: 'brief' })[0]?.outcome === 'ok');
    const [run] = i.brain.assistant.cronRuns({ job: 'brief' });
    expect(run).toMatchObject({
      due_at: '2026-05-04T06:00:00.000Z',
      outcome: 'ok',
      delivered: true,
      late: false,
    });
    expect(run!.ended_at).not.toBeNull();
    expect(i.deliveries).toEqual([
      { text: 'Your day: two meetings.', target: { channel: 'telegram', chatId: '42' } },
    ]);
    expect(i.requests[0]).toMatchObject({
      session: 'cron/brief',
      priority: 'scheduled',
      unattended: true,
      source: 'cron',
    });
  });

  it('fires a job that came due while the service was down once on start, and not again on the next start', async () => {
    vi.useFakeTimers({ ...FAKE_TIMERS, now: new Date('2026-05-04T05:00:00Z') });
    fake.fallback = () => ({ text: 'brief' });
    const first = await instance(job('0 8 * * *'));
    await first.start(createCronComponent());
    await vi.advanceTimersByTimeAsync(30 * 60_000); // 07:30 Berlin: nothing due yet
    await first.stop();
    instances.splice(0);
    expect(fake.requests).toHaveLength(0);

    vi.setSystemTime(new Date('2026-05-04T06:20:00Z')); // 08:20 Berlin: due 20 min ago while down
    const second = await instance(job('0 8 * * *'));
    await second.start(createCronComponent());
    await until(() => second.brain.assistant.cronRuns({ job: 'brief' })[0]?.outcome === 'ok');
    expect(second.brain.assistant.cronRuns({ job: 'brief' })).toMatchObject([
      { due_at: '2026-05-04T06:00:00.000Z', late: true, outcome: 'ok', delivered: true },
    ]);
    await second.stop();
    instances.splice(0);

    vi.setSystemTime(new Date('2026-05-04T06:25:00Z'));
    const third = await instance(job('0 8 * * *'));
    await third.start(createCronComponent());
    await vi.advanceTimersByTimeAsync(1000);
    expect(third.brain.assistant.cronRuns({ job: 'brief' })).toHaveLength(1);
    expect(fake.requests).toHaveLength(1);
  });

  it('records a run missed beyond catchUpMinutes as skipped and does not run it', async () => {
    vi.useFakeTimers({ ...FAKE_TIMERS, now: new Date('2026-05-04T05:00:00Z') });
    const first = await instance({ ...job('0 8 * * *'), catchUpMinutes: 30 });
    await first.start(createCronComponent());
    await first.stop();
    instances.splice(0);

    vi.setSystemTime(new Date('2026-05-04T07:00:00Z')); // 09:00 Berlin: an hour late
    const second = await instance({ ...job('0 8 * * *'), catchUpMinutes: 30 });
    await second.start(createCronComponent());
    expect(second.brain.assistant.cronRuns({ job: 'brief' })).toMatchObject([
      { due_at: '2026-05-04T06:00:00.000Z', outcome: 'skipped', delivered: false },
    ]);
    expect(second.logs.some((l) => l.startsWith('info cron.skipped'))).toBe(true);
    expect(fake.requests).toHaveLength(0);
  });

  it('does not catch up a job added after its last due time', async () => {
    vi.useFakeTimers({ ...FAKE_TIMERS, now: new Date('2026-05-04T06:10:00Z') });
    const i = await instance(job('0 8 * * *'));
    await i.start(createCronComponent());
    await vi.advanceTimersByTimeAsync(1000);
    expect(i.brain.assistant.cronRuns({ job: 'brief' })).toHaveLength(0);
  });

  it('never runs one due time twice, even when two instances claim it', async () => {
    vi.useFakeTimers({ ...FAKE_TIMERS, now: new Date('2026-05-04T06:00:00Z') });
    const a = await instance(job('0 8 * * *'));
    const claim = { job: 'brief', due_at: '2026-05-04T06:00:00Z' };
    expect(a.brain.assistant.claimCronRun(claim)).toBeDefined();
    const b = await startInstance({ dir, config: a.config });
    instances.push(b);
    expect(b.brain.assistant.claimCronRun(claim)).toBeUndefined();
  });

  it('applies added, changed and removed jobs on reconfigure without a restart', async () => {
    vi.useFakeTimers({ ...FAKE_TIMERS, now: new Date('2026-05-04T05:00:00Z') });
    const i = await instance(job('0 8 * * *'));
    const cron = createCronComponent();
    await i.start(cron);
    expect(cron.jobs().map((j) => [j.name, j.next?.toISOString()])).toEqual([
      ['brief', '2026-05-04T06:00:00.000Z'],
    ]);
    const next = writeConfig(dir, fake, {
      cron: [
        { name: 'brief', schedule: '0 9 * * *', timezone: 'Europe/Berlin', message: 'later' },
        { name: 'news', schedule: '0 12 * * *', timezone: 'UTC', message: 'news' },
      ],
    });
    i.config = next;
    cron.reconfigure!(next);
    expect(cron.jobs().map((j) => [j.name, j.next?.toISOString()])).toEqual([
      ['brief', '2026-05-04T07:00:00.000Z'],
      ['news', '2026-05-04T12:00:00.000Z'],
    ]);
    const none = writeConfig(dir, fake, {});
    i.config = none;
    cron.reconfigure!(none);
    expect(cron.jobs()).toEqual([]);
  });
});
