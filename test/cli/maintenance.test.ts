import { existsSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess as runHere } from '../cli-in-process.js';
import { runCli, tempDir } from '../helpers.js';

let dir: string;
let cleanup: () => void;
let env: Record<string, string>;
beforeAll(async () => {
  ({ dir, cleanup } = tempDir('brain-cli-doctor-'));
  env = { BRAIN_DB: join(dir, 'brain.db'), BRAIN_AGENT: 'helios' };
  expect((await runHere(['send', '--to', 'nova', '--body', 'hello'], env)).code).toBe(0);
});
afterAll(() => cleanup());

describe('brain doctor and brain backup', () => {
  it('doctor exits 0 and lists every check when all is well', async () => {
    const r = await runHere(['doctor'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/✓ integrity[\s\S]*✓ fts[\s\S]*✓ thread_counters[\s\S]*✓ deliveries/);
    expect(r.stdout).toMatch(/every check passes\n$/);
  });

  it('doctor exits 1 on a problem, --repair backs up, fixes it and exits 0', async () => {
    const raw = new BetterSqlite3(env.BRAIN_DB!);
    raw.prepare(`UPDATE threads SET message_count = 9`).run();
    raw.close();
    const found = await runCli(['doctor', '--json'], env);
    expect(found.code).toBe(1);
    const report = JSON.parse(found.stdout);
    expect(report.ok).toBe(false);
    expect(report.checks[2].problems[0]).toMatch(/counts 9 messages but has 1/);

    const backup = join(dir, 'saved.db');
    const repaired = await runHere(['doctor', '--repair', '--backup', backup], env);
    expect(repaired.code, repaired.stderr).toBe(0);
    expect(repaired.stdout).toMatch(/backup first: .*saved\.db/);
    expect(repaired.stdout).toMatch(/✓ thread_counters \(repaired\)/);
    expect(existsSync(backup)).toBe(true);
    expect((await runHere(['doctor'], env)).code).toBe(0);
  });

  it('backup writes a new file and refuses an existing one', async () => {
    const file = join(dir, 'copy.db');
    const r = await runHere(['backup', file, '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ path: file, bytes: expect.any(Number) });
    const again = await runHere(['backup', file], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(
      /^brain: CONFLICT: file: .*copy\.db already exists; choose a new name\n$/,
    );
    const poll = await runHere(['poll', '--agent', 'nova', '--db', file, '--json']);
    expect(JSON.parse(poll.stdout)).toEqual({ agent: 'nova', unread: 1 });
  });

  it('backup without a file is a usage error', async () => {
    const r = await runCli(['backup'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/missing required argument 'file'/);
  });
});
