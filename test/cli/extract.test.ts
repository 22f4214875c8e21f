import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers.js';

let dir: string;
let cleanup: () => void;
let env: Record<string, string>;
beforeEach(() => {
  ({ dir, cleanup } = tempDir('brain-extract-cli-'));
  env = { BRAIN_DB: join(dir, 'brain.db') };
});
afterEach(() => cleanup());

const brain = async (...args: string[]) => {
  const r = await runCli(args, env);
  return { ...r, json: () => JSON.parse(r.stdout) as any };
};

/** Two agents settle on a database in a thread, and close it. */
async function conversation(): Promise<{ thread: string; decided: string }> {
  const ask = (
    await brain(
      'send',
      '--agent',
      'ana',
      '--to',
      'bo',
      '--subject',
      'the hub',
      '--body',
      'Which database should the hub use?',
      '--json',
    )
  ).json();
  const decided = (
    await brain(
      'send',
      '--agent',
      'bo',
      '--to',
      'ana',
      '--thread',
      ask.thread_id,
      '--body',
      'We decided to use SQLite for the hub: it is one file.',
      '--json',
    )
  ).json();
  await brain(
    'send',
    '--agent',
    'ana',
    '--to',
    'bo',
    '--thread',
    ask.thread_id,
    '--body',
    "Good. I'll write the migration by Friday.",
  );
  expect((await brain('close', ask.thread_id)).code).toBe(0);
  return { thread: ask.thread_id, decided: decided.id };
}

describe('brain extract and brain insights', () => {
  it('learn what two agents decided, found by search as knowledge, traced to the message', async () => {
    const { thread, decided } = await conversation();
    const dry = await brain('extract', '--dry-run', '--json');
    expect(dry.code).toBe(0);
    expect(dry.json().learned.length).toBeGreaterThan(0);
    expect((await brain('insights', '--json')).json().insights).toEqual([]);

    const run = await brain('extract', '--json');
    expect(run.code).toBe(0);
    expect(run.json()).toMatchObject({ extractor: 'offline@1', read: 3, failed: 0 });
    expect((await brain('extract', '--json')).json()).toMatchObject({ read: 0, added: 0 });

    const insights = (await brain('insights', '--thread', thread, '--json')).json().insights;
    const decision = insights.find((i: any) => i.categories.includes('decision'));
    expect(decision.content).toMatch(/SQLite/);
    expect(decision.sources.map((s: any) => s.message_id)).toContain(decided);
    expect(insights.some((i: any) => i.categories.includes('commitment'))).toBe(true);

    const hits = (await brain('search', 'which database SQLite', '--json')).json().hits;
    expect(hits.some((h: any) => h.type === 'stm' && h.id === decision.id)).toBe(true);

    const provenance = (await brain('provenance', decision.id, '--json')).json();
    expect(provenance.message.id).toBe(decided);
    const back = (await brain('provenance', decided, '--json')).json();
    expect(back.derived.stm).toContainEqual(
      expect.objectContaining({ id: decision.id, extractor: 'offline@1' }),
    );
    const text = await brain('provenance', decided);
    expect(text.stdout).toContain('offline@1');
  });

  it('reads nothing with BRAIN_EXTRACT_THREADS=none, and refuses bad options in words', async () => {
    await conversation();
    const none = await runCli(['extract', '--json'], { ...env, BRAIN_EXTRACT_THREADS: 'none' });
    expect(JSON.parse(none.stdout)).toMatchObject({ read: 0 });
    const bad = await brain('extract', '--since', 'last week');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/since: must be an ISO 8601 date/);
    expect(bad.stderr).not.toMatch(/at .*\.js/);
    const limit = await brain('insights', '--limit', '0');
    expect(limit.code).toBe(2);
    expect(limit.stderr).toMatch(/limit: must be a whole number/);
    const setting = await runCli(['extract'], { ...env, BRAIN_EXTRACT_THREADS: 'some' });
    expect(setting.code).toBe(2);
    expect(setting.stderr).toMatch(/BRAIN_EXTRACT_THREADS: must be one of all, tagged, none/);
    expect((await brain('insights', '--json')).json().insights).toEqual([]);
  });
});
