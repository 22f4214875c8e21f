import { afterEach, describe, expect, it } from 'vitest';
import { OWNER_ID, sentTexts, telegramFixture, type TelegramFixture } from './helpers.js';

/** A reply streams into one Telegram message edited in place, then becomes the formatted reply. */

let f: TelegramFixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

function held() {
  let release!: () => void;
  const hold = new Promise<void>((resolve) => (release = resolve));
  return { hold, release };
}

describe('a Telegram reply as it is written', { timeout: 30_000 }, () => {
  it('shows the first words in a message, then edits that message into the formatted reply', async () => {
    f = await telegramFixture({ channel: { streamEveryMs: { private: 20, group: 20 } } });
    const { hold, release } = held();
    f.model.script.push({ text: ['Working on ', 'it: **done**.'], hold });
    f.tg.message(OWNER_ID, 'do the thing');
    await f.tg.waitFor('sendMessage', 1);
    expect(sentTexts(f.tg)).toEqual(['Working on …']);
    // Shown as it streams: plain text, no formatting to break half-way.
    expect(f.tg.callsOf('sendMessage')[0]!.params.parse_mode).toBeUndefined();
    release();
    const edits = await f.tg.waitFor('editMessageText', 1);
    await f.host.lane.idle();
    const last = f.tg.callsOf('editMessageText').at(-1)!;
    expect(last.params).toMatchObject({
      text: 'Working on it: <b>done</b>.',
      parse_mode: 'HTML',
      chat_id: String(OWNER_ID),
    });
    expect(edits.length).toBeGreaterThanOrEqual(1);
    // One message in the chat: the reply.
    expect(f.tg.callsOf('sendMessage')).toHaveLength(1);
  });

  it('cuts a long streamed reply into messages of at most 4,096 characters', async () => {
    f = await telegramFixture({ channel: { streamEveryMs: { private: 20, group: 20 } } });
    const { hold, release } = held();
    const paragraph = `${'word '.repeat(300).trim()}\n\n`;
    const rest = paragraph.repeat(5);
    f.model.script.push({ text: ['Start. ', rest], hold });
    f.tg.message(OWNER_ID, 'write a lot');
    await f.tg.waitFor('sendMessage', 1);
    release();
    await f.tg.waitFor('sendMessage', 3);
    await f.host.lane.idle();
    const texts = [
      ...f.tg.callsOf('sendMessage').map((c) => String(c.params.text)),
      ...f.tg.callsOf('editMessageText').map((c) => String(c.params.text)),
    ];
    for (const text of texts) expect(text.length).toBeLessThanOrEqual(4096);
    // Every word arrived, in messages that hold the whole reply once.
    const finalTexts = f.tg
      .callsOf('editMessageText')
      .filter((c) => c.params.parse_mode === 'HTML')
      .map((c) => String(c.params.text));
    const sentFinal = f.tg
      .callsOf('sendMessage')
      .filter((c) => c.params.parse_mode === 'HTML')
      .map((c) => String(c.params.text));
    const all = [...finalTexts, ...sentFinal].join(' ');
    expect(all.match(/word/g)).toHaveLength(1500);
  });
});
