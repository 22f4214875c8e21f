import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findLitestream } from '../../cli/litestream.js';
import { tempDir } from '../helpers.js';

const { dir, cleanup } = tempDir('brain-litestream-');
afterAll(cleanup);

function fakeBin(folder: string, mode: number): string {
  mkdirSync(folder, { recursive: true });
  const path = join(folder, 'litestream');
  writeFileSync(path, '#!/bin/sh\necho v0.3.13\n');
  chmodSync(path, mode);
  return path;
}

describe('finding Litestream', () => {
  it('takes the binary of the package installed with brain first', () => {
    const onPath = fakeBin(join(dir, 'first'), 0o755);
    const found = findLitestream(join(dir, 'first'));
    expect(found?.source).toBe('package');
    expect(found?.path).toMatch(/@flydotio\/litestream-linux-x64\/litestream$/);
    expect(found?.path).not.toBe(onPath);
  });

  it('falls back to the first executable litestream on PATH', () => {
    fakeBin(join(dir, 'not-executable'), 0o644);
    const executable = fakeBin(join(dir, 'bin'), 0o755);
    const searchPath = ['', join(dir, 'empty'), join(dir, 'not-executable'), join(dir, 'bin')].join(
      delimiter,
    );
    expect(findLitestream(searchPath, { packaged: false })).toEqual({
      path: executable,
      source: 'PATH',
    });
    expect(findLitestream(join(dir, 'empty'), { packaged: false })).toBeUndefined();
  });
});
