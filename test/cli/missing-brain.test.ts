import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess as runHere } from '../cli-in-process.js';
import { runCli, tempDir } from '../helpers.js';

/**
 * Reads never create a brain; writes create one and say so once. A typo in --db must show as an
 * error naming the path, not as an empty brain that answers "no hits".
 */

let dir: string;
let cleanup: () => void;
let missing: string;
beforeEach(() => {
  ({ dir, cleanup } = tempDir('brain-cli-missing-'));
  missing = join(dir, 'typo', 'nope.db');
});
afterEach(() => cleanup());

const MSG = 'syn_0123456789ab';
const THR = 'thr_00000000-0000-4000-8000-000000000000';
const ATM = 'atm_0123456789ab';

/** Every command that only reads, or writes only to what must already be there. */
const READS: string[][] = [
  ['search', 'foo'],
  ['search', 'foo', '--types', 'stm'],
  ['poll', '--agent', 'nova'],
  ['inbox', '--agent', 'nova'],
  ['read', '--agent', 'nova'],
  ['ack', MSG, '--agent', 'nova'],
  ['threads'],
  ['thread', THR],
  ['archive', THR],
  ['tag', THR, 'x'],
  ['memories'],
  ['link', ATM, 'atm_ba9876543210'],
  ['chain', ATM],
  ['provenance', MSG],
  ['recent'],
  ['export'],
  ['agents'],
  ['doctor'],
  ['backup', 'copy.db'],
  ['embed', '--status'],
  ['embed'],
  ['usage'],
  ['approvals'],
  ['approvals', '--revoke', '3'],
  ['pairing', 'list'],
  ['pairing', 'approve', 'ABCDEFGH'],
  ['reminders'],
  ['tasks'],
  ['cron', 'history', 'daily'],
  ['ui', '--port', '0'],
];

describe('a command that reads, on a brain that is not there', () => {
  it.each(READS.map((args) => [args.join(' '), args]))(
    '`brain %s` fails NOT_FOUND naming the path and creates nothing',
    async (_, args) => {
      const r = await runHere([...args, '--db', missing]);
      expect(r).toEqual({
        code: 1,
        stdout: '',
        stderr: `brain: NOT_FOUND: no brain database at ${missing}\n`,
      });
      expect(existsSync(join(dir, 'typo'))).toBe(false);
    },
  );

  it('says so from the built CLI too: exit 1, one line, no stack (search, poll)', async () => {
    for (const args of [
      ['search', 'foo'],
      ['poll', '--agent', 'nova', '--json'],
    ]) {
      const r = await runCli([...args, '--db', missing]);
      expect(r).toEqual({
        code: 1,
        stdout: '',
        stderr: `brain: NOT_FOUND: no brain database at ${missing}\n`,
      });
    }
    expect(existsSync(join(dir, 'typo'))).toBe(false);
  });

  it('does not turn an empty file into a brain', async () => {
    const empty = join(dir, 'empty.db');
    writeFileSync(empty, '');
    const r = await runHere(['poll', '--agent', 'nova', '--db', empty]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`brain: NOT_FOUND: no brain database at ${empty} (the file is empty)\n`);
    expect(readFileSync(empty, 'utf8')).toBe('');
  });

  it('checks its options before looking for the brain (a usage error stays exit 2)', async () => {
    const r = await runHere(['approvals', '--revoke', 'x1', '--db', missing]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^brain: INVALID_INPUT: --revoke: /);
  });
});

describe('a command that writes, on a brain that is not there', () => {
  it('creates it with its folder, says so once on stderr, and keeps --json stdout clean', async () => {
    const sent = await runCli([
      'send',
      '--agent',
      'helios',
      '--to',
      'nova',
      '--body',
      'hello',
      '--db',
      missing,
      '--json',
    ]);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stderr).toBe(`brain: created a new brain at ${missing}\n`);
    expect(Object.keys(JSON.parse(sent.stdout))).toEqual([
      'id',
      'thread_id',
      'created_at',
      'recipients',
    ]);
    const again = await runHere(['send', '--agent', 'helios', '--body', 'hi', '--db', missing]);
    expect(again).toMatchObject({ code: 0, stderr: '' });
    const poll = await runHere(['poll', '--agent', 'nova', '--db', missing, '--json']);
    expect(JSON.parse(poll.stdout)).toEqual({ agent: 'nova', unread: 2 });
  });

  it.each([
    [['remember', 'a fact', '--agent', 'nova']],
    [['atom', '--agent', 'nova', '--subject', 's', '--action', 'a', '--outcome', 'o']],
    [['whoami', '--agent', 'nova']],
  ])('`brain %j` creates the brain too', async (args) => {
    const r = await runHere([...args, '--db', missing]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(`brain: created a new brain at ${missing}\n`);
    expect(existsSync(missing)).toBe(true);
  });

  it('import creates the brain it imports into', async () => {
    const source = join(dir, 'source.db');
    await runHere(['send', '--agent', 'helios', '--body', 'kept', '--db', source]);
    const file = join(dir, 'export.json');
    expect((await runHere(['export', '-o', file, '--db', source])).code).toBe(0);
    const r = await runHere(['import', file, '--db', missing, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(`brain: created a new brain at ${missing}\n`);
    expect(JSON.parse(r.stdout).imported.messages).toBe(1);
  });
});
