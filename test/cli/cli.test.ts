import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess as runHere } from '../cli-in-process.js';
import { CLI, ROOT, runCli, tempBrain, tempDir } from '../helpers.js';

let dir: string;
let cleanup: () => void;
let env: Record<string, string>;
beforeAll(() => {
  ({ dir, cleanup } = tempDir('brain-cli-'));
  env = { BRAIN_DB: join(dir, 'brain.db') };
});
afterAll(() => cleanup());

const json = async (args: string[], extra: Record<string, string> = {}) => {
  const r = await runHere([...args, '--json'], { ...env, ...extra });
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as any;
};

describe('brain CLI, end to end', () => {
  it('runs the whole contract with --json', async () => {
    const sent = await json([
      'send',
      '--agent',
      'helios',
      '--to',
      'nova',
      '--subject',
      'spread gate',
      '--body',
      'zero predictive power',
    ]);
    expect(sent.id).toMatch(/^syn_/);
    expect(sent.thread_id).toMatch(/^thr_/);
    await json(['send', '--agent', 'helios', '--body', 'broadcast to all']);
    expect(await json(['poll', '--agent', 'nova'])).toEqual({ agent: 'nova', unread: 2 });
    expect((await json(['inbox', '--agent', 'nova'])).messages).toHaveLength(2);
    expect((await json(['read'], { BRAIN_AGENT: 'nova' })).messages).toHaveLength(2);
    expect((await json(['poll', '--agent', 'nova'])).unread).toBe(0);

    const ack = await json(['ack', sent.id, '--agent', 'nova', '--body', 'agreed']);
    expect(ack).toMatchObject({ message_id: sent.id, body: 'agreed', created: true });
    expect((await json(['ack', sent.id, '--agent', 'nova'])).created).toBe(false);

    const stm = await json([
      'remember',
      'drop the spread gate',
      '--agent',
      'nova',
      '--categories',
      'trading,meta',
      '--importance',
      '2.5',
      '--source',
      sent.id,
    ]);
    expect(stm).toMatchObject({
      categories: ['meta', 'trading'],
      importance: 2.5,
      source_message_id: sent.id,
    });
    const a1 = await json([
      'atom',
      '--agent',
      'nova',
      '--subject',
      'spread gate',
      '--action',
      'filter',
      '--outcome',
      'no edge',
      '--consequences',
      'drop',
      '--source',
      sent.id,
    ]);
    const a2 = await json([
      'atom',
      '--agent',
      'nova',
      '--subject',
      'EV halt',
      '--action',
      'halt',
      '--outcome',
      'fewer losses',
    ]);
    expect(
      await json(['link', a1.id, a2.id, '--type', 'causes', '--strength', '0.7']),
    ).toMatchObject({ from: a1.id, to: a2.id, strength: 0.7 });
    expect((await json(['chain', a1.id])).steps).toHaveLength(1);

    const search = await json(['search', 'spread gate']);
    expect(search.hits.map((h: { id: string }) => h.id)).toEqual(
      expect.arrayContaining([sent.id, stm.id, a1.id]),
    );
    expect(
      (await json(['search', 'spread', '--types', 'atom'])).hits.map(
        (h: { type: string }) => h.type,
      ),
    ).toEqual(['atom']);

    const prov = await json(['provenance', stm.id]);
    expect(prov.message.id).toBe(sent.id);
    expect(prov.thread.id).toBe(sent.thread_id);
    expect((await json(['provenance', sent.id])).derived.stm[0].id).toBe(stm.id);

    expect((await json(['recent', '--hours', '1'])).items.length).toBe(5);
    const history = await json(['thread', sent.thread_id]);
    expect(history.messages[0].acks[0].body).toBe('agreed');
    expect((await json(['threads', '--status', 'active'])).threads).toHaveLength(2);
    expect((await json(['archive', sent.thread_id])).status).toBe('archived');
    expect((await json(['threads', '--status', 'archived'])).threads).toHaveLength(1);
    expect((await json(['memories'])).stm).toHaveLength(1);
    expect((await json(['agents'])).agents.map((a: { name: string }) => a.name)).toEqual([
      'helios',
      'nova',
    ]);

    const exported = await runHere(['export'], env);
    const file = join(dir, 'export.json');
    writeFileSync(file, exported.stdout);
    const copy = { BRAIN_DB: join(dir, 'copy.db') };
    expect((await json(['import', file], copy)).imported.messages).toBe(2);
    expect((await runHere(['export'], copy)).stdout).toBe(exported.stdout);
  });

  it('prints output for people without --json', async () => {
    const sent = await runHere(
      ['send', '--agent', 'a', '--to', 'b', '--subject', 'hello there', '--body', 'how are you?'],
      env,
    );
    expect(sent.stdout).toMatch(/^sent syn_[0-9a-f]{12} in thread thr_/);
    expect((await runHere(['poll', '--agent', 'b'], env)).stdout).toBe('b: 1 unread\n');
    const inbox = await runHere(['inbox', '--agent', 'b'], env);
    expect(inbox.stdout).toContain('a → b');
    expect(inbox.stdout).toContain('how are you?');
    expect((await runHere(['search', 'hello'], env)).stdout).toMatch(/message\s+syn_/);
    expect((await runHere(['threads'], env)).stdout).toContain('hello there');
    const piped = await runCli(
      ['send', '--agent', 'a', '--to', 'b', '--body', '-', '--json'],
      env,
      'from a pipe\nline two',
    );
    expect(piped.code, piped.stderr).toBe(0);
    const id = JSON.parse(piped.stdout).id as string;
    expect(JSON.parse((await runHere(['provenance', id, '--json'], env)).stdout).message.body).toBe(
      'from a pipe\nline two',
    );
  });

  it('exits 2 on usage errors, naming the field, with no stack trace', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['send', '--agent', 'a', '--to', 'b'], /body: is required/],
      [['send', '--to', 'b', '--body', 'x'], /agent: is required/],
      [['send', '--agent', 'a', '--body', 'x', '--priority', 'loud'], /priority: must be one of/],
      [
        ['send', '--agent', 'a', '--body', 'x', '--metadata', '[1]'],
        /metadata: must be a JSON object/,
      ],
      [
        ['remember', 'x', '--agent', 'a', '--importance', '9'],
        /importance: must be between 1.0 and 3.0/,
      ],
      [['search', 'x', '--since', 'whenever'], /since: /],
      [['search', 'x', '--types', 'threads'], /types.0: must be one of/],
      [['ack', 'not-an-id', '--agent', 'a'], /message_id: must be a message id/],
      [['nosuchcommand'], /unknown command/],
      [['send', '--bogus'], /unknown option/],
    ];
    for (const [args, message] of cases) {
      const r = await runHere(args, env);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(r.stdout).toBe('');
    }
    // The same through a real process: the exit status and stderr of the built command.
    for (const [args, message] of [cases[0]!, cases[8]!]) {
      const r = await runCli(args, env);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(r.stdout).toBe('');
    }
  });

  it('exits 1 on runtime errors: missing things, foreign files', async () => {
    const missing = await runCli(['provenance', 'stm_000000000000'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/NOT_FOUND: id: no STM entry/);
    const notBrain = join(dir, 'text.db');
    writeFileSync(notBrain, 'just text, definitely not sqlite, long enough to have a header');
    const foreign = await runHere(['poll', '--agent', 'a', '--db', notBrain]);
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toMatch(/NOT_A_BRAIN: .*text.db is not a brain database/);
    const badImport = await runHere(['import', join(dir, 'nope.json')], env);
    expect(badImport.code).toBe(1);
    expect(badImport.stderr).toMatch(/cannot read .*nope.json: no such file/);
  });

  it('migrates legacy files and reports counts, twice without duplicates', async () => {
    const fixtures = join(ROOT, 'test', 'fixtures', 'legacy');
    const m = { BRAIN_DB: join(dir, 'migrated.db') };
    const args = [
      'migrate',
      '--synapse',
      join(fixtures, 'synapse.json'),
      '--cortex',
      join(fixtures, 'cortex'),
    ];
    const first = await runHere(args, m);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(
      /synapse: read 11 records .*: 5 messages imported, 0 already present, 6 skipped/,
    );
    expect(first.stdout).toMatch(/cortex: read 5 records .*: 3 memories imported/);
    expect(first.stdout).toMatch(/skipped #4 \(msg-0005\): no body/);
    const second = await json(args, m);
    expect(second.reports.map((r: { imported: number }) => r.imported)).toEqual([0, 0]);
  });

  it('runs the demo on a scratch database and suggests next commands', async () => {
    const r = await runHere(['demo'], {});
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('1. helios sends nova a finding');
    expect(r.stdout).toMatch(/message\s+syn_/);
    expect(r.stdout).toMatch(/stm\s+stm_/);
    expect(r.stdout).toMatch(/came from syn_/);
    expect(r.stdout).toContain('Next, try');
    const demo = await json(['demo'], { BRAIN_DB: join(dir, 'demo.db') });
    expect(demo.hits.map((h: { type: string }) => h.type).sort()).toEqual(
      ['atom', 'message', 'message', 'stm'].sort(),
    );
  });

  it('stops quietly when the reader closes the pipe early', async () => {
    const t = await tempBrain();
    try {
      t.brain.batch(() => {
        for (let i = 0; i < 1500; i += 1)
          t.brain.messages.send({ from: 'a', to: 'b', body: `message ${i} ${'x'.repeat(100)}` });
      });
      const r = spawnSync('bash', ['-c', `node "${CLI}" export | head -c 100 >/dev/null`], {
        env: { ...process.env, BRAIN_DB: t.path },
        encoding: 'utf8',
      });
      expect(r.status).toBe(0);
      expect(r.stderr).not.toMatch(/EPIPE|\n\s+at /);
    } finally {
      t.cleanup();
    }
  });
});
