import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers.js';

let dir: string;
let cleanup: () => void;
let env: Record<string, string>;
beforeEach(() => {
  ({ dir, cleanup } = tempDir('brain-summarize-cli-'));
  env = { BRAIN_DB: join(dir, 'brain.db') };
});
afterEach(() => cleanup());

const brain = async (...args: string[]) => {
  const r = await runCli(args, env);
  return { ...r, json: () => JSON.parse(r.stdout) as any };
};

/** Two agents settle on a database in a thread. */
async function conversation(): Promise<{ thread: string; first: string; last: string }> {
  const say = async (from: string, to: string, body: string, thread?: string) =>
    (
      await brain(
        'send',
        '--agent',
        from,
        '--to',
        to,
        ...(thread ? ['--thread', thread] : ['--subject', 'the hub']),
        '--body',
        body,
        '--json',
      )
    ).json() as { id: string; thread_id: string };
  const ask = await say('ana', 'bo', 'Which database should the hub use?');
  await say('bo', 'ana', 'We decided to use SQLite for the hub: it is one file.', ask.thread_id);
  const last = await say('ana', 'bo', "Good. I'll write the migration by Friday.", ask.thread_id);
  return { thread: ask.thread_id, first: ask.id, last: last.id };
}

describe('brain summarize and brain thread', () => {
  it('a closed thread is summarized by brain extract, and brain thread shows the summary first', async () => {
    const { thread, first, last } = await conversation();
    const before = (await brain('thread', thread, '--json')).json();
    expect(before.summary).toBeNull();
    expect((await brain('close', thread)).code).toBe(0);

    const extract = await brain('extract', '--json');
    expect(extract.code).toBe(0);
    expect(extract.json()).toMatchObject({ summarized: 1 });

    const shown = await brain('thread', thread);
    expect(shown.code).toBe(0);
    const lines = shown.stdout.split('\n');
    const at = lines.findIndex((l) => l.startsWith('summary: '));
    expect(at).toBeGreaterThan(0);
    expect(lines[at]).toContain('decided to use SQLite for the hub');
    // Before the first message.
    expect(at).toBeLessThan(lines.findIndex((l) => l.includes('Which database')));

    const json = (await brain('thread', thread, '--json')).json();
    expect(Object.keys(json)[0]).toBe('summary');
    expect(json.summary).toMatchObject({
      thread_id: thread,
      extractor: 'summary@1',
      first_message_id: first,
      last_message_id: last,
      messages: 3,
    });
    expect(json.messages).toHaveLength(3);
  });

  it('brain summarize runs now and prints the summary; a newer one supersedes it', async () => {
    const { thread, last } = await conversation();
    const human = await brain('summarize', thread);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^ana and bo talked about "the hub"/);
    expect(human.stdout).toContain(`… ${last} (3 messages)`);

    const later = (
      await brain(
        'send',
        '--agent',
        'bo',
        '--to',
        'ana',
        '--thread',
        thread,
        '--body',
        'Merged the migration.',
        '--json',
      )
    ).json();
    const first = (await brain('insights', '--thread', thread, '--json')).json().insights;
    const again = (await brain('summarize', thread, '--json')).json();
    expect(again.summary).toMatchObject({ last_message_id: later.id, messages: 4 });
    const all = (await brain('insights', '--thread', thread, '--all', '--json')).json().insights;
    const older = all.find(
      (i: any) => i.id === first.find((f: any) => f.categories.includes('summary')).id,
    );
    expect(older.superseded_by).toBe(again.summary.id);
    expect((await brain('thread', thread, '--json')).json().summary.id).toBe(again.summary.id);
  });

  it('a malformed thread id exits 2 naming the field, without a stack trace', async () => {
    await conversation();
    for (const args of [
      ['summarize', 'thr_nope'],
      ['summarize', 'thr_nope', '--json'],
    ]) {
      const r = await brain(...args);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('thread_id');
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    const missing = await brain('summarize', 'thr_00000000-0000-4000-8000-000000000000');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/NOT_FOUND.*thread_id/);
  });
});
