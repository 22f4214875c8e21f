import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openBrain } from '../../src/index.js';
import { runCli, tempDir } from '../helpers.js';

const DAY = 86_400_000;

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

describe('brain doctor and brain webhooks', () => {
  it('doctor says what the retention policy does now and next; webhooks lists and replays', async () => {
    const temp = tempDir('brain-retention-cli-');
    cleanup = temp.cleanup;
    const db = join(temp.dir, 'brain.db');
    // Threads last written 40 and 25 days ago, by a clock set back (doctor reads the real one).
    let now = Date.now() - 40 * DAY;
    const brain = await openBrain({ dbPath: db, create: true, clock: () => new Date(now) });
    const old = brain.messages.send({ from: 'helios', to: 'nova', subject: 'old', body: 'o' });
    now += 15 * DAY;
    const soon = brain.messages.send({ from: 'helios', to: 'nova', subject: 'soon', body: 's' });
    // A delivery that failed every attempt, to a hook no longer configured.
    const worker = brain.webhooks.worker([
      {
        name: 'gone',
        url: 'http://127.0.0.1:9/never',
        secret: 'x'.repeat(16),
        events: ['message'],
        agents: undefined,
        includeBodies: false,
        maxAttempts: 1,
      },
    ]);
    await worker.tick();
    brain.messages.send({ from: 'helios', to: 'nova', subject: 'hook', body: 'h' });
    await worker.tick();
    brain.close();
    const config = join(temp.dir, 'assistant.json');
    writeFileSync(config, JSON.stringify({ retention: { archiveAfterDays: 30 } }));

    const doctor = await runCli(['--db', db, 'doctor', '--config', config]);
    expect(doctor.stderr).toBe('');
    expect(doctor.stdout).toContain(`retention: archives 1 idle thread(s) now: ${old.thread_id}`);
    expect(doctor.stdout).toMatch(
      new RegExp(
        `retention: next, archives ${soon.thread_id} at \\S+ \\(2 step\\(s\\) in the next 7 days`,
      ),
    );
    const json = await runCli(['--db', db, '--json', 'doctor', '--config', config]);
    expect(JSON.parse(json.stdout).retention.due).toHaveLength(1);

    const dead = await runCli(['--db', db, 'webhooks', '--dead']);
    expect(dead.stdout).toMatch(/^whd_1 {2}gone {2}message {2}dead after 1 attempt\(s\): /);
    const replay = await runCli(['--db', db, 'webhooks', 'replay', 'whd_1']);
    expect(replay.stdout).toContain('queued whd_1 to gone again');
    const listed = await runCli(['--db', db, '--json', 'webhooks']);
    expect(JSON.parse(listed.stdout).deliveries).toMatchObject([
      { id: 'whd_1', status: 'pending', attempts: 0 },
    ]);
    const bad = await runCli(['--db', db, 'webhooks', 'replay', 'whd_7']);
    expect([bad.code, bad.stderr.trim()]).toEqual([
      1,
      'brain: NOT_FOUND: id: no webhook delivery whd_7',
    ]);
  });
});
