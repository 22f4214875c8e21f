import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openBrain } from '../../src/index.js';
import { runCliInProcess } from '../cli-in-process.js';
import { runCli, tempDir } from '../helpers.js';
import { spawnUi } from './browser.js';

const tmp = tempDir('brain-ui-cli-');
const db = join(tmp.dir, 'brain.db');
afterAll(() => tmp.cleanup());

describe('brain ui (the command)', () => {
  it('refuses a host beyond loopback without --tokens: exit 2 and the option named', async () => {
    // No assistant config (one would make the owner's login and let it start).
    const r = await runCli(['--db', db, 'ui', '--host', '0.0.0.0', '--port', '0'], {
      XDG_CONFIG_HOME: tmp.dir,
      BRAIN_ASSISTANT_CONFIG: '',
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^brain: INVALID_INPUT: --host: 0\.0\.0\.0 is not loopback, so --tokens FILE is required/,
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('refuses a bad port and an unreadable tokens file with exit 2', async () => {
    const port = await runCliInProcess(['--db', db, 'ui', '--port', 'http']);
    expect(port.code).toBe(2);
    expect(port.stderr).toMatch(/--port/);
    const tokens = await runCliInProcess([
      '--db',
      db,
      'ui',
      '--port',
      '0',
      '--tokens',
      join(tmp.dir, 'missing'),
    ]);
    expect(tokens.code).toBe(2);
    expect(tokens.stderr).toMatch(/--tokens: cannot read/);
  });

  it('serves on loopback, prints its URL and stops on SIGTERM', async () => {
    // brain ui browses a brain that is there; on a missing one it is NOT_FOUND (missing-brain.test.ts).
    (await openBrain({ dbPath: db })).close();
    const ui = await spawnUi(db);
    const res = await fetch(ui.url + '/');
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('No threads yet.');
    await ui.stop();
    expect(ui.child.exitCode).toBe(0);
  });
});
