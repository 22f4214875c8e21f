import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../cli-in-process.js';
import { ROOT, runCli, tempBrain, type TempBrain } from '../helpers.js';
import { connectStdio } from '../mcp/helpers.js';

const declared = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }
).version;

let t: TempBrain;
beforeEach(async () => {
  t = await tempBrain();
});
afterEach(() => t.cleanup());

describe('the installed command names itself', () => {
  it('prints the version package.json declares for --version', async () => {
    const r = await runCli(['--version']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(declared);
  });

  it('introduces brain mcp to a client with the same version', async () => {
    const c = await connectStdio(t.path, 'alice');
    try {
      expect(c.client.getServerVersion()).toMatchObject({ name: 'brain', version: declared });
    } finally {
      await c.close();
    }
  });

  it('suggests the installed brain after the demo unless npm started it', async () => {
    const db = join(t.dir, 'demo.db');
    const plain = await runCliInProcess(['demo', '--db', db], { npm_command: undefined });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toMatch(/^ {2}BRAIN_DB=\S+ brain search /m);
    expect(plain.stdout).not.toContain('npx');
    const viaNpx = await runCliInProcess(['demo', '--db', join(t.dir, 'demo2.db')], {
      npm_command: 'exec',
    });
    expect(viaNpx.stdout).toMatch(/^ {2}BRAIN_DB=\S+ npx brain search /m);
  });
});
