import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BrainError, openBrain, openPoller, type OpenBrainOptions } from '../../src/index.js';
import { openQuickBrain } from '../../src/quick-brain.js';
import { openSearcher } from '../../src/searcher.js';
import { tempDir } from '../helpers.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => cleanup());

const openers: Array<[string, (o: OpenBrainOptions) => { close(): void }]> = [
  ['openBrain', openBrain],
  ['openPoller', openPoller],
  ['openSearcher', openSearcher],
  ['openQuickBrain', openQuickBrain],
];

function failure(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof BrainError) return `${err.code}: ${err.message}`;
    throw err;
  }
  throw new Error('it opened');
}

describe('opening with create: false', () => {
  it.each(openers)('%s refuses a missing file with NOT_FOUND and creates no folder', (_, open) => {
    const path = join(dir, 'typo', 'brain.db');
    expect(failure(() => open({ dbPath: path, create: false }))).toBe(
      `NOT_FOUND: no brain database at ${path}`,
    );
    expect(existsSync(join(dir, 'typo'))).toBe(false);
  });

  it('refuses an empty file and leaves it empty', () => {
    const path = join(dir, 'empty.db');
    writeFileSync(path, '');
    expect(failure(() => openPoller({ dbPath: path, create: false }))).toBe(
      `NOT_FOUND: no brain database at ${path} (the file is empty)`,
    );
    expect(statSync(path).size).toBe(0);
  });

  it('opens a brain that is there, and says nothing was created', () => {
    const path = join(dir, 'brain.db');
    const made: string[] = [];
    const first = openBrain({ dbPath: path, onCreated: () => made.push('first') });
    first.messages.send({ from: 'helios', to: 'nova', body: 'hello' });
    first.close();
    const again = openPoller({ dbPath: path, create: false, onCreated: () => made.push('again') });
    expect(again.poll('nova').unread).toBe(1);
    again.close();
    expect(made).toEqual(['first']);
  });

  it('tells the one open that made the brain, not a later one of the same file', () => {
    const path = join(dir, 'new', 'brain.db');
    const made: string[] = [];
    openQuickBrain({ dbPath: path, onCreated: () => made.push('a') }).close();
    openQuickBrain({ dbPath: path, onCreated: () => made.push('b') }).close();
    expect(made).toEqual(['a']);
  });
});
