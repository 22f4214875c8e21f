import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BrainError, openBrain, type OpenBrainOptions } from '../../src/index.js';
import { tempDir } from '../helpers.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => cleanup());

// Every section opens the file the same way, whichever the brain is opened with.
const openers: Array<[string, (o: OpenBrainOptions) => Promise<{ close(): void }>]> = [
  ['every section', (o) => openBrain(o)],
  ['messages only', (o) => openBrain(o, ['messages'])],
  ['search only', (o) => openBrain(o, ['search'])],
  ['no section', (o) => openBrain(o, [])],
];

async function failure(fn: () => Promise<unknown>): Promise<string> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof BrainError) return `${err.code}: ${err.message}`;
    throw err;
  }
  throw new Error('it opened');
}

describe('opening with create: false', () => {
  it.each(openers)(
    '%s: refuses a missing file with NOT_FOUND and creates no folder',
    async (_, open) => {
      const path = join(dir, 'typo', 'brain.db');
      expect(await failure(() => open({ dbPath: path, create: false }))).toBe(
        `NOT_FOUND: no brain database at ${path}`,
      );
      expect(existsSync(join(dir, 'typo'))).toBe(false);
    },
  );

  it('refuses an empty file and leaves it empty', async () => {
    const path = join(dir, 'empty.db');
    writeFileSync(path, '');
    expect(await failure(() => openBrain({ dbPath: path, create: false }, ['messages']))).toBe(
      `NOT_FOUND: no brain database at ${path} (the file is empty)`,
    );
    expect(statSync(path).size).toBe(0);
  });

  it('opens a brain that is there, and says nothing was created', async () => {
    const path = join(dir, 'brain.db');
    const made: string[] = [];
    const first = await openBrain({ dbPath: path, onCreated: () => made.push('first') });
    first.messages.send({ from: 'helios', to: 'nova', body: 'hello' });
    first.close();
    const again = await openBrain(
      { dbPath: path, create: false, onCreated: () => made.push('again') },
      ['messages'],
    );
    expect(again.messages.poll('nova').unread).toBe(1);
    again.close();
    expect(made).toEqual(['first']);
  });

  it('tells the one open that made the brain, not a later one of the same file', async () => {
    const path = join(dir, 'new', 'brain.db');
    const made: string[] = [];
    (await openBrain({ dbPath: path, onCreated: () => made.push('a') }, ['messages'])).close();
    (await openBrain({ dbPath: path, onCreated: () => made.push('b') }, ['messages'])).close();
    expect(made).toEqual(['a']);
  });
});
