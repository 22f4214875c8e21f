import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBrain } from '../../src/index.js';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic.js';
import { runCliInProcess as runHere } from '../cli-in-process.js';
import { useEveryFeature } from '../full-brain.js';
import { fixedClock, runCli, tempDir } from '../helpers.js';

/**
 * `brain export` → `brain import` → `brain export` through the built CLI, on a brain that used
 * every feature, and the restored brain in use: `brain chat --session work` continues the thread
 * the session had, against a loopback fake of the Anthropic API.
 */

let dir: string;
let cleanup: () => void;
let fake: FakeAnthropic;
let source: string;
let work: string;
beforeAll(async () => {
  ({ dir, cleanup } = tempDir('brain-cli-transfer-'));
  source = join(dir, 'source.db');
  const brain = await openBrain({ dbPath: source, clock: fixedClock() });
  work = useEveryFeature(brain, fixedClock('2026-01-01T01:00:00.000Z')).session.thread_id;
  brain.close();
  fake = await startFakeAnthropic();
});
afterAll(async () => {
  await fake.close();
  cleanup();
});

describe('brain export and brain import, as a backup', () => {
  it('give back the same brain: export → import into a new file → export is identical', async () => {
    const file = join(dir, 'backup.json');
    const exported = await runCli(['export', '-o', file, '--db', source]);
    expect(exported.code, exported.stderr).toBe(0);
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    expect(doc).toMatchObject({ format: 'brain-export', version: 2 });
    expect(doc.sessions.map((s: { name: string }) => s.name)).toEqual(['chat/work', 'inbox/nova']);

    const restored = join(dir, 'restored', 'brain.db');
    const imported = await runCli(['import', file, '--db', restored]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toBe(`brain: created a new brain at ${restored}\n`);
    expect(imported.stdout).toMatch(
      /^imported 5 agents, 4 threads, 7 messages, 2 stm, 2 atoms, 1 atom links, 2 sessions, 4 reminders, 2 tasks, 4 cron runs, 3 approvals, 1 approval rules, 2 pairings, 1 owner targets, 2 model usage, 2 scheduler state\n$/,
    );
    const again = await runCli(['export', '--db', restored]);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual(doc);

    const twice = await runHere(['import', file, '--db', restored]);
    expect(twice.stdout).toMatch(/^imported nothing new\n\d+ rows were already present/);
  });

  it('after import, brain chat --session work continues the same thread', async () => {
    const restored = join(dir, 'chat.db');
    const file = join(dir, 'chat.json');
    expect((await runHere(['export', '-o', file, '--db', source])).code).toBe(0);
    expect((await runHere(['import', file, '--db', restored])).code).toBe(0);

    const config = join(dir, 'assistant.json');
    writeFileSync(
      config,
      JSON.stringify({
        agent: 'assistant',
        owner: 'ann',
        models: {
          endpoints: [{ provider: 'anthropic', model: 'claude-fake', baseUrl: fake.baseUrl }],
        },
      }),
    );
    const env = {
      BRAIN_DB: restored,
      BRAIN_ASSISTANT_CONFIG: config,
      XDG_CONFIG_HOME: join(dir, 'cfg'),
      ANTHROPIC_API_KEY: 'sk-test',
    };
    fake.script.push({ text: 'welcome back' });
    const chat = await runHere(
      ['chat', '--session', 'work', '-m', 'where were we?', '--json'],
      env,
    );
    expect(chat.code, chat.stderr).toBe(0);
    const turn = JSON.parse(chat.stdout);
    expect(turn).toMatchObject({ reply: 'welcome back', session: 'chat/work', thread_id: work });
    // The model saw the thread as it was: its compaction summary, then the turn after it.
    const sent = JSON.stringify(fake.requests.at(-1)!.body.messages);
    expect(sent).toContain('summary: ann planned');
    expect(sent).toContain('"text":"sure"');

    const after = JSON.parse((await runHere(['export', '--db', restored])).stdout);
    const session = after.sessions.find((s: { name: string }) => s.name === 'chat/work');
    expect(session.thread_id).toBe(work);
    expect(session.threads).toHaveLength(2);
  });
});
