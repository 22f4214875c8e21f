import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createHeartbeat,
  hasChecklist,
  isHeartbeatOk,
} from '../../../agent/scheduler/heartbeat.js';
import { withinHours } from '../../../agent/scheduler/when.js';
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
  ({ dir, cleanup } = tempDir('brain-heartbeat-'));
  fake = await fakeModel();
});
afterEach(async () => {
  for (const i of instances.splice(0)) await i.stop().catch(() => {});
  vi.useRealTimers();
  await fake.close();
  cleanup();
});

async function instance(heartbeat: Record<string, unknown> = {}) {
  const config = writeConfig(dir, fake, {
    heartbeat: { everyMinutes: 30, timezone: 'Europe/Berlin', ...heartbeat },
  });
  const i = await startInstance({ dir, config });
  instances.push(i);
  return i;
}

const checklist = (text = '# Checks\n\n- Is the backup older than a day?\n') =>
  writeFileSync(join(dir, 'HEARTBEAT.md'), text);

describe('what counts as HEARTBEAT_OK', () => {
  it.each([
    'HEARTBEAT_OK',
    '  HEARTBEAT_OK\n',
    '**HEARTBEAT_OK**',
    '`HEARTBEAT_OK`',
    'HEARTBEAT_OK. Nothing needs you.',
    'All checks pass. HEARTBEAT_OK',
    'Nothing new today.\n\nHEARTBEAT_OK.',
  ])('treats %j as nothing to say', (reply) => {
    expect(isHeartbeatOk(reply)).toBe(true);
  });

  it.each([
    'The backup is 3 days old.',
    'HEARTBEAT_OKAY is not the token',
    `The backup failed. ${'Details follow. '.repeat(30)} HEARTBEAT_OK`,
    'Disk is full; I said HEARTBEAT_OK last time, but not now: it is full.',
  ])('treats %j as a finding', (reply) => {
    expect(isHeartbeatOk(reply)).toBe(false);
  });

  it('counts a file of headings and blank lines as no checklist', () => {
    expect(hasChecklist('# Heartbeat\n\n## Daily\n\n')).toBe(false);
    expect(hasChecklist('')).toBe(false);
    expect(hasChecklist('# Heartbeat\n- check mail\n')).toBe(true);
  });
});

describe('active hours', () => {
  const hours = { start: '22:00', end: '06:00' };
  it('spans midnight when the end is before the start', () => {
    const berlin = (iso: string) => withinHours(new Date(iso), hours, 'Europe/Berlin');
    expect(berlin('2026-05-04T21:30:00Z')).toBe(true); // 23:30
    expect(berlin('2026-05-04T23:59:00Z')).toBe(true); // 01:59
    expect(berlin('2026-05-05T03:59:00Z')).toBe(true); // 05:59
    expect(berlin('2026-05-05T04:00:00Z')).toBe(false); // 06:00
    expect(berlin('2026-05-05T10:00:00Z')).toBe(false); // 12:00
    expect(berlin('2026-05-04T19:59:00Z')).toBe(false); // 21:59
  });
});

describe('the heartbeat', { timeout: 30_000 }, () => {
  it('ticks every everyMinutes only inside active hours that cross midnight', async () => {
    vi.useFakeTimers({ ...FAKE_TIMERS, now: new Date('2026-05-04T19:00:00Z') }); // 21:00 Berlin
    checklist();
    fake.fallback = () => ({ text: 'HEARTBEAT_OK' });
    const i = await instance({ activeHours: { start: '22:00', end: '01:00' } });
    await i.start(createHeartbeat());
    // To 03:00 Berlin, one tick at a time: each tick's turn (real HTTP to the fake model) ends
    // before the next is due, as it would in real time.
    const outcomes = () => i.logs.filter((l) => /heartbeat\.(suppressed|skipped)/.test(l)).length;
    for (let n = 1; n <= 12; n++) {
      await vi.advanceTimersByTimeAsync(30 * 60_000);
      await until(() => outcomes() === n);
    }
    // Ticks at 21:30, 22:00 … 01:00 … 03:00: inside 22:00-01:00 are 22:00, 22:30, … 00:30.
    expect(fake.requests).toHaveLength(6);
    expect(i.logs.filter((l) => l.includes('heartbeat.skipped')).length).toBe(6);
    expect(i.deliveries).toEqual([]);
  });

  it('suppresses HEARTBEAT_OK and delivers a real finding with the tasks in the prompt', async () => {
    checklist();
    const i = await instance({ deliverTo: 'discord:99' });
    const beat = createHeartbeat();
    await i.start(beat);
    i.brain.assistant.addTask({
      title: 'File the taxes',
      due_at: '2020-01-01T00:00:00Z',
      priority: 'high',
    });
    i.brain.assistant.addTask({ title: 'Water the plants' });
    fake.script.push({ text: 'HEARTBEAT_OK' }, { text: 'The backup is 3 days old.' });
    expect(await beat.tick()).toMatchObject({ status: 'suppressed', reason: 'HEARTBEAT_OK' });
    expect(await beat.tick()).toMatchObject({ status: 'delivered' });
    expect(i.deliveries).toEqual([
      { text: 'The backup is 3 days old.', target: { channel: 'discord', chatId: '99' } },
    ]);
    const prompt = JSON.stringify(fake.requests[0]!.body.messages);
    expect(prompt).toContain('Is the backup older than a day?');
    expect(prompt).toMatch(/\[high\] due [^\n]*OVERDUE File the taxes/);
    expect(prompt).toContain('Water the plants');
    expect(i.requests[0]).toMatchObject({
      session: 'heartbeat',
      unattended: true,
      priority: 'scheduled',
    });
  });

  it('suppresses a finding identical to the one delivered within 24 hours, and delivers it again after', async () => {
    vi.useFakeTimers({ ...FAKE_TIMERS, now: new Date('2026-05-04T08:00:00Z') });
    checklist();
    fake.fallback = () => ({ text: 'The backup is 3 days old.' });
    const i = await instance({ everyMinutes: 600 });
    const beat = createHeartbeat();
    await i.start(beat);
    expect((await beat.tick()).status).toBe('delivered');
    vi.setSystemTime(new Date('2026-05-05T07:00:00Z'));
    expect(await beat.tick()).toMatchObject({
      status: 'suppressed',
      reason: 'same as the last delivered, within 24 h',
    });
    vi.setSystemTime(new Date('2026-05-05T08:30:00Z'));
    expect((await beat.tick()).status).toBe('delivered');
    expect(i.deliveries).toHaveLength(2);
  });

  it('skips the tick without a checklist, or with only headings, unless forced', async () => {
    const i = await instance();
    const beat = createHeartbeat();
    await i.start(beat);
    expect(await beat.tick()).toMatchObject({ status: 'skipped', reason: 'no HEARTBEAT.md' });
    checklist('# Heartbeat\n\n## Nothing yet\n');
    expect(await beat.tick()).toMatchObject({ status: 'skipped' });
    expect(fake.requests).toHaveLength(0);
    fake.script.push({ text: 'HEARTBEAT_OK' });
    expect(await beat.tick({ force: true })).toMatchObject({ status: 'suppressed' });
    expect(fake.requests).toHaveLength(1);
  });

  it('skips the tick while a turn of the owner is running', async () => {
    checklist();
    const i = await instance();
    const beat = createHeartbeat();
    await i.start(beat);
    fake.script.push({ error: 'stall' });
    const owner = i.host.enqueue({
      session: 'chat/default',
      text: 'hello',
      source: 'chat',
      priority: 'owner',
      unattended: false,
      io: { onText: () => {} },
    });
    await until(() => fake.requests.length === 1);
    expect(await beat.tick()).toMatchObject({
      status: 'skipped',
      reason: 'the owner has a turn running',
    });
    owner.cancel('test over');
    await owner.done.catch(() => {});
    expect(fake.requests).toHaveLength(1);
  });

  it('never logs the reply it delivers', async () => {
    checklist();
    const i = await instance();
    const beat = createHeartbeat();
    await i.start(beat);
    fake.script.push({ text: 'Secret finding: the vault code is 1234.' });
    expect((await beat.tick()).status).toBe('delivered');
    expect(i.logs.join('\n')).not.toContain('vault code');
  });
});
