import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCronComponent } from '../../../agent/scheduler/cron.js';
import { connectionOf } from '../../../src/brain.js';
import { openBrain, RETRIED } from '../../../src/index.js';
import { tempDir } from '../../helpers.js';
import type { FakeAnthropic } from '../../fakes/anthropic.js';
import { fakeModel, startInstance, until, writeConfig, type Instance } from './harness.js';

/**
 * A cron run a crashed service left `running` (its process gone) is `interrupted` when the
 * service starts again; the job's `onInterrupt` decides whether it runs once more.
 */

let fake: FakeAnthropic;
let dir: string;
let cleanup: () => void;
const instances: Instance[] = [];

beforeEach(async () => {
  ({ dir, cleanup } = tempDir('brain-cron-interrupt-'));
  fake = await fakeModel();
});
afterEach(async () => {
  for (const i of instances.splice(0)) await i.stop().catch(() => {});
  await fake.close();
  cleanup();
});

async function endedProcess(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

/** A run left `running` by a process that has ended, as `kill -9` leaves it. */
async function leftRunning(detail = ''): Promise<number> {
  const pid = await endedProcess();
  const brain = await openBrain({ dbPath: join(dir, 'brain.db') });
  const now = Date.now();
  const { lastInsertRowid } = connectionOf(brain)
    .prepare(
      `INSERT INTO cron_runs (job, due_at, started_at, outcome, detail, pid, host)
       VALUES ('brief', ?, ?, 'running', ?, ?, ?)`,
    )
    .run(now - 60_000, now - 50_000, detail, pid, hostname());
  brain.close();
  return Number(lastInsertRowid);
}

async function start(more: Record<string, unknown> = {}) {
  // Due once a year, long ago: nothing but the interrupted run is run.
  const cron = [{ name: 'brief', schedule: '0 8 1 1 *', message: 'Morning brief', ...more }];
  const i = await startInstance({ dir, config: writeConfig(dir, fake, { cron }) });
  instances.push(i);
  await i.start(createCronComponent());
  return i;
}

const runOf = (i: Instance, id: number) =>
  i.brain.assistant.cronRuns({ job: 'brief' }).find((r) => r.id === id);

describe('a cron run cut short by a crash', { timeout: 30_000 }, () => {
  it('is retried once on start by default, and its history says so', async () => {
    fake.fallback = () => ({ text: 'Your day: two meetings.' });
    const id = await leftRunning();
    const i = await start();
    await until(() => runOf(i, id)?.outcome === 'ok');
    expect(runOf(i, id)).toMatchObject({ outcome: 'ok', delivered: true });
    expect(runOf(i, id)!.detail).toBe(RETRIED);
    expect(fake.requests).toHaveLength(1);
    expect(i.deliveries.map((d) => d.text)).toEqual(['Your day: two meetings.']);
    expect(i.logs.join('\n')).toMatch(/cron\.interrupted .*"retry":true/);
  });

  it('stays interrupted when the job says onInterrupt: "skip", and nothing runs', async () => {
    const id = await leftRunning();
    const i = await start({ onInterrupt: 'skip' });
    expect(runOf(i, id)).toMatchObject({ outcome: 'interrupted' });
    expect(runOf(i, id)!.detail).toMatch(/^interrupted: process \d+ ended$/);
    expect(fake.requests).toHaveLength(0);
  });

  it('is not retried a second time when its retry was interrupted too', async () => {
    const id = await leftRunning(RETRIED);
    const i = await start();
    expect(runOf(i, id)).toMatchObject({ outcome: 'interrupted' });
    expect(runOf(i, id)!.detail).toMatch(
      new RegExp(`^${RETRIED}; interrupted: process \\d+ ended$`),
    );
    expect(fake.requests).toHaveLength(0);
  });
});
