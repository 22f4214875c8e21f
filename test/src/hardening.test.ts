import { connectionOf } from '../../src/brain.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BrainError, openBrain, readJsonFile } from '../../src/index.js';
import { fingerprint } from '../reliability/fingerprint.js';
import { tempBrain, type TempBrain } from '../helpers.js';

let t: TempBrain;
beforeEach(async () => (t = await tempBrain({ maxBodyBytes: 1000 })));
afterEach(() => t.cleanup());

async function failure(fn: () => unknown): Promise<BrainError> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof BrainError) return err;
    throw err;
  }
  throw new Error('did not fail');
}

describe('files that are not what they claim', () => {
  it('refuses a device as the database instead of writing beside it', async () => {
    const err = await failure(() => openBrain({ dbPath: '/dev/null' }));
    expect(err.code).toBe('INVALID_INPUT');
    expect(err.message).toBe('--db: /dev/null is not a regular file');
  });

  it('refuses to read a device or FIFO as an import or legacy file (it would never end)', async () => {
    for (const read of [
      () => readJsonFile('/dev/zero', 'file'),
      () => t.brain.transfer.migrateSynapse('/dev/zero'),
      () => t.brain.transfer.migrateCortex('/dev/zero'),
    ])
      expect((await failure(read)).message).toMatch(/: \/dev\/zero is not a regular file$/);
  });

  it('reports bad JSON by position and never quotes the file', async () => {
    const file = join(t.dir, 'passwd');
    writeFileSync(file, 'root:x:0:0:root:/root:/bin/bash\n');
    const quoted = await failure(() => readJsonFile(file, 'file'));
    expect(quoted.message).toMatch(/is not valid JSON: it has an unexpected character/);
    expect(quoted.message).not.toContain('root');
    writeFileSync(file, '{\n  "secret": "hunter2",\n  "x": }');
    const secret = await failure(() => readJsonFile(file, 'file'));
    expect(secret.message).toMatch(/is not valid JSON: it has an unexpected character/);
    expect(secret.message).not.toContain('hunter2');
    writeFileSync(file, '{"a": [1, 2');
    expect((await failure(() => readJsonFile(file, 'file'))).message).toMatch(
      /not valid JSON: Expected ',' or '\]' after array element at line 1, column 12$/,
    );
    writeFileSync(file, '');
    expect((await failure(() => readJsonFile(file, 'file'))).message).toMatch(/it ends too early/);
  });
});

describe('the body limit holds on every way in', () => {
  it('import refuses a message body over BRAIN_MAX_BODY_BYTES and adds nothing', async () => {
    const other = await tempBrain();
    other.brain.messages.send({ from: 'ada', to: 'bob', body: 'small' });
    other.brain.messages.send({ from: 'ada', to: 'bob', body: 'é'.repeat(501) }); // 1002 bytes
    const doc = other.brain.transfer.export();
    other.cleanup();
    const before = fingerprint(connectionOf(t.brain));
    const err = await failure(() => t.brain.transfer.import(doc));
    expect(err.message).toBe(
      'import: messages.1.body: is 1002 bytes; the limit is 1000 (BRAIN_MAX_BODY_BYTES)',
    );
    expect(fingerprint(connectionOf(t.brain))).toBe(before);
  });

  it('a SYNAPSE message over the limit is skipped with the reason', () => {
    const file = join(t.dir, 'synapse.json');
    writeFileSync(
      file,
      JSON.stringify({
        messages: [
          { id: 'm1', from: 'ada', to: 'bob', body: 'ok', timestamp: '2025-01-01T00:00:00Z' },
          { id: 'm2', from: 'ada', to: 'bob', body: 'x'.repeat(1001), timestamp: 1735689600 },
        ],
      }),
    );
    const report = t.brain.transfer.migrateSynapse(file);
    expect(report.imported).toBe(1);
    expect(report.skipped).toEqual([
      {
        index: 1,
        id: 'm2',
        reason: 'body is 1001 bytes; the limit is 1000 (BRAIN_MAX_BODY_BYTES)',
      },
    ]);
  });
});
