import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openBrain } from '../../src/index.js';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic.js';
import { startFakeTelegram, type FakeTelegram } from '../fakes/telegram.js';
import { runCliInProcess } from '../cli-in-process.js';
import { runCli, tempDir } from '../helpers.js';

/**
 * `brain heartbeat`, `brain cron …`, `brain reminders`, `brain tasks`: run in this process, and
 * through the built CLI (`real`) where the exit status is the point.
 */

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(extra: Record<string, unknown> = {}, extraEnv: Record<string, string> = {}) {
  const { dir, cleanup } = tempDir('brain-scheduler-cli-');
  cleanups.push(cleanup);
  const fake: FakeAnthropic = await startFakeAnthropic();
  cleanups.push(() => fake.close());
  const workspace = join(dir, 'ws');
  mkdirSync(workspace);
  const config = join(dir, 'assistant.json');
  writeFileSync(
    config,
    JSON.stringify({
      agent: 'assistant',
      owner: 'ann',
      workspace,
      models: {
        endpoints: [{ provider: 'anthropic', model: 'claude-fake', baseUrl: fake.baseUrl }],
      },
      ...extra,
    }),
  );
  const env = {
    BRAIN_DB: join(dir, 'brain.db'),
    BRAIN_ASSISTANT_CONFIG: config,
    XDG_CONFIG_HOME: join(dir, 'cfg'),
    ANTHROPIC_API_KEY: 'sk-test',
    ...extraEnv,
  };
  return {
    dir,
    workspace,
    fake,
    db: env.BRAIN_DB,
    cli: (args: string[]) => runCliInProcess(args, env),
    real: (args: string[]) => runCli(args, env),
  };
}

/** A brain whose config delivers to Telegram chat 42 of the fake Bot API, with polling nowhere. */
async function withTelegram(extra: Record<string, unknown> = {}) {
  const tg: FakeTelegram = await startFakeTelegram();
  cleanups.push(() => tg.close());
  const s = await setup(
    { telegram: { apiRoot: tg.apiRoot }, ...extra },
    { TELEGRAM_BOT_TOKEN: tg.token },
  );
  return { ...s, tg };
}

describe('brain heartbeat', { timeout: 90_000 }, () => {
  it('sends a finding to deliverTo with the bot API, then suppresses the same finding or HEARTBEAT_OK', async () => {
    const s = await withTelegram({ heartbeat: { deliverTo: 'telegram:42' } });
    expect((await s.cli(['heartbeat'])).stdout).toBe('suppressed: no HEARTBEAT.md\n');
    writeFileSync(join(s.workspace, 'HEARTBEAT.md'), '# Checks\n- Is the backup fresh?\n');
    s.fake.script.push(
      { text: 'The backup is 3 days old.' },
      { text: 'The backup is 3 days old.' },
      { text: 'HEARTBEAT_OK' },
    );
    const first = await s.cli(['heartbeat']);
    expect(first.code).toBe(0);
    expect(first.stdout).toBe('The backup is 3 days old.\n\ndelivered to telegram:42\ndelivered\n');
    const sent = s.tg.callsOf('sendMessage');
    expect(sent.map((c) => [c.params.chat_id, c.params.text])).toEqual([
      ['42', 'The backup is 3 days old.'],
    ]);
    // Sent, not polled: the command never asked for updates.
    expect(s.tg.callsOf('getUpdates')).toHaveLength(0);
    const second = await s.cli(['heartbeat']);
    expect(second.stdout).toBe('suppressed: same as the last delivered, within 24 h\n');
    const third = await s.cli(['heartbeat', '--json']);
    expect(JSON.parse(third.stdout)).toMatchObject({
      status: 'suppressed',
      reason: 'HEARTBEAT_OK',
    });
    expect(JSON.stringify(s.fake.requests[0]!.body.messages)).toContain('Is the backup fresh?');
  });

  it('runs with --force when the checklist is only headings', async () => {
    const s = await setup();
    writeFileSync(join(s.workspace, 'HEARTBEAT.md'), '# Checks\n');
    expect((await s.cli(['heartbeat'])).stdout).toMatch(
      /^suppressed: HEARTBEAT\.md has only headings/,
    );
    s.fake.script.push({ text: 'HEARTBEAT_OK' });
    expect((await s.cli(['heartbeat', '--force'])).stdout).toBe('suppressed: HEARTBEAT_OK\n');
    expect(s.fake.requests).toHaveLength(1);
  });

  it('does not count a finding no channel took as delivered, and says so', async () => {
    const s = await setup();
    writeFileSync(join(s.workspace, 'HEARTBEAT.md'), '# Checks\n- Is the backup fresh?\n');
    s.fake.script.push({ text: 'The backup is old.' }, { text: 'The backup is old.' });
    const first = await s.cli(['heartbeat']);
    expect(first.stdout).toContain('The backup is old.');
    expect(first.stdout).toContain('not delivered (nowhere: no deliverTo, no owner chat yet)');
    expect(first.stdout).toMatch(/suppressed: no channel took it\n$/);
    // Not remembered as delivered: the same finding is tried again.
    expect((await s.cli(['heartbeat'])).stdout).toMatch(/suppressed: no channel took it\n$/);
  });
});

describe('brain cron', { timeout: 90_000 }, () => {
  it('runs a job now, records it in its history, and lists it with its last run', async () => {
    const s = await withTelegram({
      cron: [
        {
          name: 'brief',
          schedule: '0 8 * * *',
          timezone: 'Europe/Berlin',
          message: 'Brief me',
          deliverTo: 'telegram:42',
        },
      ],
    });
    s.fake.script.push({ text: 'Two meetings today.' });
    const run = await s.cli(['cron', 'run', 'brief', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).run).toMatchObject({
      job: 'brief',
      outcome: 'ok',
      delivered: true,
    });
    expect(JSON.parse(run.stdout)).toMatchObject({
      reply: 'Two meetings today.',
      delivered_to: ['telegram:42'],
    });
    expect(s.tg.callsOf('sendMessage').map((c) => c.params.text)).toEqual(['Two meetings today.']);
    const history = JSON.parse((await s.cli(['cron', 'history', 'brief', '--json'])).stdout);
    expect(history.runs).toHaveLength(1);
    const list = await s.cli(['cron', 'list']);
    expect(list.stdout).toMatch(
      /^brief {2}0 8 \* \* \* Europe\/Berlin {2}next .* last \d+ {2}due .* ok delivered/,
    );
  });

  it('fails with NOT_FOUND for a job the config does not have, and exits 2 without a name', async () => {
    const s = await setup();
    const r = await s.real(['cron', 'run', 'nope']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^brain: NOT_FOUND: no cron job named nope/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect((await s.real(['cron', 'run'])).code).toBe(2);
  });
});

describe(
  'brain reminders, brain tasks, brain memories --category memo',
  { timeout: 60_000 },
  () => {
    it('lists what the assistant keeps, at times in the owner’s zone, named', async () => {
      const s = await setup({ timeZone: 'Europe/Zurich' });
      const brain = await openBrain({ dbPath: s.db });
      brain.assistant.addReminder({ text: 'Call the dentist', due_at: '2030-01-01T09:00:00Z' });
      brain.assistant.addTask({
        title: 'Renew passport',
        priority: 'high',
        due_at: '2030-07-01T22:30:00Z',
      });
      const done = brain.assistant.addTask({ title: 'Pay rent' });
      brain.assistant.completeTask(done.id);
      brain.knowledge.remember({
        agent: 'assistant',
        content: 'Memo: buy milk',
        categories: ['memo'],
      });
      brain.knowledge.remember({
        agent: 'assistant',
        content: 'Ann likes tea',
        categories: ['preference'],
      });
      brain.close();

      expect((await s.cli(['reminders'])).stdout).toMatch(
        /^1 {2}2030-01-01 10:00 Europe\/Zurich {2}\[notify\] {2}Call the dentist\n$/,
      );
      expect((await s.cli(['tasks'])).stdout).toContain('due 2030-07-02 00:30 Europe/Zurich');
      expect(JSON.parse((await s.cli(['tasks', '--json'])).stdout).tasks).toMatchObject([
        { title: 'Renew passport', priority: 'high' },
      ]);
      expect((await s.cli(['tasks', '--done'])).stdout).toContain('Pay rent');
      const memos = JSON.parse((await s.cli(['memories', '--category', 'memo', '--json'])).stdout);
      expect(memos.stm.map((m: { content: string }) => m.content)).toEqual(['Memo: buy milk']);
    });
  },
);
