import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTelegramChannel } from '../../../../agent/channels/telegram/bot.js';
import { BOT_USER } from '../../../fakes/telegram.js';
import { runCliInProcess } from '../../../cli-in-process.js';
import { runCli } from '../../../helpers.js';
import { OWNER_ID, sentTexts, telegramFixture, type TelegramFixture } from './helpers.js';

/** The real grammY bot against the fake Bot API, turns through the real assistant and fake model. */

let f: TelegramFixture | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await f?.close();
  f = undefined;
});

const CODE = /code: ([A-HJKMNP-Z2-9]{8})\n/;

describe('the Telegram channel', { timeout: 60_000 }, () => {
  it('admits nobody with an empty allowlist: an unknown sender gets a pairing code and nothing else', async () => {
    f = await telegramFixture({ telegram: { allowedChatIds: [] } });
    f.tg.message(OWNER_ID, 'hello?');
    f.tg.message(555, 'let me in');
    await f.tg.waitFor('sendMessage', 2);
    const toStranger = sentTexts(f.tg, 555);
    expect(toStranger).toHaveLength(1);
    expect(toStranger[0]).toMatch(CODE);
    expect(sentTexts(f.tg, OWNER_ID)[0]).toMatch(CODE);
    expect(f.model.requests).toHaveLength(0);
    expect(f.tg.callsOf('sendChatAction')).toHaveLength(0);
  });

  it('serves a sender once the owner approves the code with brain pairing approve', async () => {
    f = await telegramFixture({ telegram: { allowedChatIds: [] } });
    f.tg.message(555, 'let me in');
    await f.tg.waitFor('sendMessage', 1);
    const code = CODE.exec(sentTexts(f.tg, 555)[0]!)![1]!;
    const env = { BRAIN_DB: f.t.path };
    // The approval is a real `brain pairing` process (another process to the bot); the list and
    // the refusals around it run in this one.
    const listed = await runCliInProcess(['pairing', 'list', '--json'], env);
    expect(JSON.parse(listed.stdout).pairings[0]).toMatchObject({ code, user_id: '555' });
    const approved = await runCli(['pairing', 'approve', code.toLowerCase()], env);
    expect(approved.code).toBe(0);
    expect(approved.stdout).toMatch(/approved telegram user 555/);
    expect((await runCliInProcess(['pairing', 'deny', code], env)).code).toBe(1);
    expect((await runCliInProcess(['pairing', 'deny', 'nope'], env)).stderr).toMatch(
      /^brain: INVALID_INPUT: code: /,
    );

    f.model.script.push({ text: 'Welcome aboard.' });
    f.tg.message(555, 'hi again');
    await f.tg.waitFor('sendMessage', 2);
    expect(sentTexts(f.tg, 555)[1]).toBe('Welcome aboard.');
    // Not the owner: their words reach the model, but as another voice in their own session.
    expect(f.host.brain.assistant.sessions().map((s) => s.name)).toContain('telegram/555');
  });

  it('keeps a conversation as a brain thread that the library finds by search, and logs no body or token', async () => {
    f = await telegramFixture();
    f.model.script.push({ text: 'Your **zebra** plan is noted.' });
    f.tg.message(OWNER_ID, 'remember my zebra migration plan');
    await f.tg.waitFor('sendMessage', 1);
    const sent = f.tg.callsOf('sendMessage')[0]!;
    expect(sent.params).toMatchObject({
      chat_id: String(OWNER_ID),
      text: 'Your <b>zebra</b> plan is noted.',
      parse_mode: 'HTML',
    });
    const session = f.host.brain.assistant
      .sessions()
      .find((s) => s.name === f!.host.ownerSession())!;
    const hits = f.host.brain.search.search({
      query: 'zebra migration',
      thread: session.thread_id,
    });
    expect(hits.hits.length).toBeGreaterThan(0);
    expect(f.tg.callsOf('sendChatAction')[0]!.params).toMatchObject({ action: 'typing' });

    const info = f.lines.filter((l) => !l.startsWith('debug')).join('');
    expect(info).toMatch(/telegram\.turn_queued/);
    expect(info).not.toContain(f.tg.token);
    expect(info).not.toContain('zebra');
  });

  it('sends a 9,000-character reply in order, in parts of at most 4,096 with balanced code blocks', async () => {
    f = await telegramFixture();
    const code = Array.from({ length: 200 }, (_, i) => `row ${i}: value < ${i * 7}`).join('\n');
    const prose = Array.from(
      { length: 10 },
      (_, i) => `Section ${i}. ${'lorem ipsum '.repeat(40)}`,
    );
    const reply = `${prose.join('\n\n')}\n\n\`\`\`\n${code}\n\`\`\`\n\nDone.`;
    expect(reply.length).toBeGreaterThan(9000);
    f.model.script.push({ text: reply });
    f.tg.message(OWNER_ID, 'the long one');
    await f.tg.waitFor('sendMessage', 3);
    // Wait for the last part: it ends with "Done.".
    while (!sentTexts(f.tg).some((s) => s.endsWith('Done.')))
      await f.tg.waitFor('sendMessage', sentTexts(f.tg).length + 1);
    const parts = sentTexts(f.tg);
    expect(parts.length).toBeGreaterThanOrEqual(3);
    for (const p of parts) {
      expect(p.length).toBeLessThanOrEqual(4096);
      expect(p.match(/<pre>/g)?.length ?? 0).toBe(p.match(/<\/pre>/g)?.length ?? 0);
    }
    expect(parts[0]).toMatch(/^Section 0\./);
    const joined = parts.join('\n');
    for (let i = 1; i < 10; i++)
      expect(joined.indexOf(`Section ${i}.`)).toBeGreaterThan(joined.indexOf(`Section ${i - 1}.`));
    expect(joined.indexOf('row 199')).toBeGreaterThan(joined.indexOf('row 0:'));
  });

  it('escapes hostile text, and sends the same text plain when Telegram cannot parse the entities', async () => {
    f = await telegramFixture();
    f.model.script.push({ text: 'Try <b onmouseover="x">this</b> & <script>go()</script>' });
    f.tg.message(OWNER_ID, 'hostile please');
    await f.tg.waitFor('sendMessage', 1);
    expect(sentTexts(f.tg)[0]).toBe(
      'Try &lt;b onmouseover="x"&gt;this&lt;/b&gt; &amp; &lt;script&gt;go()&lt;/script&gt;',
    );

    f.tg.fail('sendMessage', { error: 'cant_parse' });
    f.model.script.push({ text: 'A *fine* answer & more' });
    f.tg.message(OWNER_ID, 'again');
    await f.tg.waitFor('sendMessage', 3);
    const [, rejected, plain] = f.tg.callsOf('sendMessage');
    expect(rejected!.params).toMatchObject({
      parse_mode: 'HTML',
      text: 'A <i>fine</i> answer &amp; more',
    });
    expect(plain!.params.parse_mode).toBeUndefined();
    expect(plain!.params.text).toBe('A fine answer & more');
    expect(f.lines.join('')).toMatch(/telegram\.parse_fallback/);
  });

  it('answers a message it cannot read (a sticker) with what is supported', async () => {
    f = await telegramFixture();
    f.tg.message(OWNER_ID, undefined as unknown as string, {
      text: undefined,
      sticker: { file_id: 's', file_unique_id: 'u', type: 'regular', width: 1, height: 1 },
    });
    await f.tg.waitFor('sendMessage', 1);
    expect(sentTexts(f.tg)[0]).toMatch(/photos, documents, voice notes and audio files, not this/);
    expect(f.tg.callsOf('getFile')).toHaveLength(0);
    expect(f.model.requests).toHaveLength(0);
  });

  it('handles an update delivered twice only once', async () => {
    f = await telegramFixture();
    f.model.script.push({ text: 'once' }, { text: 'then' }, { text: 'extra' });
    const update = {
      update_id: 77,
      message: {
        message_id: 5,
        date: 1,
        chat: { id: OWNER_ID, type: 'private' },
        from: { id: OWNER_ID, is_bot: false, first_name: 'Ann' },
        text: 'say it',
      },
    };
    f.tg.push(update);
    f.tg.push(update);
    f.tg.message(OWNER_ID, 'and then');
    // Turns of one session run in order: the second model request is the next message's.
    await f.tg.waitFor('sendMessage', 2);
    expect(sentTexts(f.tg)).toEqual(['once', 'then']);
    const lastUser = JSON.stringify((f.model.requests[1]!.body.messages as unknown[]).at(-1));
    expect(lastUser).toContain('and then');
    expect(f.lines.join('')).toMatch(/telegram\.duplicate_update update=77/);
  });

  it('answers in a group only when mentioned or replied to, with the mention taken out', async () => {
    const group = -1001;
    f = await telegramFixture({ telegram: { allowedChatIds: [OWNER_ID, group] } });
    const inGroup = (text: string, extra: Record<string, unknown> = {}) =>
      f!.tg.push({
        message: {
          message_id: 9,
          date: 1,
          chat: { id: group, type: 'supergroup', title: 'g' },
          from: { id: 222, is_bot: false, first_name: 'Bob' },
          text,
          ...extra,
        },
      });
    f.model.script.push({ text: 'mentioned' }, { text: 'replied' });
    inGroup('just chatting');
    inGroup(`@${BOT_USER.username} what time is it`);
    await f.tg.waitFor('sendMessage', 1);
    inGroup('and you?', {
      reply_to_message: {
        message_id: 1,
        date: 1,
        chat: { id: group, type: 'supergroup' },
        from: BOT_USER,
        text: 'x',
      },
    });
    await f.tg.waitFor('sendMessage', 2);
    expect(sentTexts(f.tg, group)).toEqual(['mentioned', 'replied']);
    expect(f.model.requests).toHaveLength(2);
    const first = JSON.stringify(f.model.requests[0]!.body.messages);
    expect(first).toContain('what time is it');
    expect(first).not.toContain(`@${BOT_USER.username}`);
    expect(f.host.brain.assistant.sessions().map((s) => s.name)).toContain(`telegram/${group}`);
  });

  it('reports the bot name on check and sends proactive messages with notify', async () => {
    f = await telegramFixture();
    expect(await f.channel.check!(f.host)).toEqual([
      { name: 'telegram', ok: true, detail: `bot @${BOT_USER.username}; 1 allowed chat(s)` },
    ]);
    await f.channel.notify(String(OWNER_ID), 'Reminder: **water** the plants');
    expect(sentTexts(f.tg)).toEqual(['Reminder: <b>water</b> the plants']);
  });

  it('refuses to start with a token Telegram rejects, and says so on check without the token', async () => {
    f = await telegramFixture();
    const wrong = createTelegramChannel({ ...f.config.telegram!, token: '999:wrong-secret' });
    await expect(wrong.start(f.host)).rejects.toMatchObject({
      code: 'UPSTREAM_FAILED',
      message: expect.stringMatching(
        /^TELEGRAM_BOT_TOKEN was refused by Telegram: 401 Unauthorized/,
      ),
    });
    const [item] = await wrong.check!(f.host);
    expect(item).toMatchObject({ name: 'telegram', ok: false });
    expect(item!.detail).toMatch(/^TELEGRAM_BOT_TOKEN was refused by Telegram: 401 Unauthorized/);
    expect(item!.detail + f.lines.join('')).not.toContain('wrong-secret');
    await wrong.stop();
  });

  it('applies a new allowlist on reconfigure', async () => {
    f = await telegramFixture();
    f.channel.reconfigure!({
      ...f.config,
      telegram: { ...f.config.telegram!, allowedChatIds: [OWNER_ID, 333] },
    });
    f.model.script.push({ text: 'now you are in' });
    f.tg.message(333, 'hello');
    await f.tg.waitFor('sendMessage', 1);
    expect(sentTexts(f.tg, 333)).toEqual(['now you are in']);
  });
});
