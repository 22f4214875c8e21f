import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { runRepl } from '../../agent/chat.js';
import { createAssistant } from '../../agent/assistant.js';
import { systemClock } from '../../src/index.js';
import { serviceFixture, type ServiceFixture } from '../agent/service/helpers.js';
import { tally } from './tally.js';

/**
 * `brain chat` prints the model's words to the owner's terminal: a reply steered by a page must
 * not be able to clear the screen, hide what follows (the real approval prompt) or paint a fake
 * one, with escape sequences, carriage returns or bidi overrides.
 */

const t = tally('terminal');
let f: ServiceFixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

const HOSTILE = [
  '\x1b[2J\x1b[H',
  '\x1b[8m',
  '\x1b]0;title\x07',
  '\x9b31m',
  'ok\rAllow this call? run_command `ls -la`',
  '\u202eprompt',
  'tab\tand\nline',
];

describe('the terminal prints the model’s text without control characters', () => {
  it('streamed and whole', async () => {
    f = await serviceFixture();
    for (const stream of [true, false]) {
      const text = `Reply ${HOSTILE.join(' ')}`;
      f.fake.script.push({ text: stream ? [...text] : text });
    }
    const assistant = createAssistant({
      brain: f.t.brain,
      config: f.config,
      clock: systemClock,
      log: f.log,
    });
    const input = new PassThrough();
    const output = new PassThrough();
    let printed = '';
    output.on('data', (c: Buffer) => (printed += c.toString()));
    const ended = runRepl({
      assistant,
      brain: f.t.brain,
      session: 'chat/default',
      streams: { input, output, note: () => {} },
    });
    input.write('first\n');
    input.end('second\n');
    await ended;
    expect(printed).toContain('Reply');
    expect(printed).toContain('tab\tand\nline');
    const controls = [...printed].filter((c) =>
      ['\x1b', '\x07', '\x9b', '\r', '\u202e'].includes(c),
    );
    expect(controls).toEqual([]);
    for (let i = 0; i < HOSTILE.length - 1; i++) t.refused();
  });
});
