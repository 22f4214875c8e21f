import { afterEach, describe, expect, it } from 'vitest';
import { OWNER_ID, sentTexts, telegramFixture, type TelegramFixture } from './helpers.js';

/** Telegram's slash commands come from the one conversation module (agent/conversation/commands.ts). */

let f: TelegramFixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

describe('Telegram slash commands', { timeout: 30_000 }, () => {
  it('answers the owner’s /usage, /model and /help without a model call', async () => {
    f = await telegramFixture();
    f.host.brain.assistant.recordUsage({
      source: 'channel',
      session: f.host.ownerSession(),
      model: 'claude-fake',
      endpoint: 'anthropic:claude-fake@0',
      input_tokens: 10,
      output_tokens: 2,
    });
    f.tg.message(OWNER_ID, '/usage');
    f.tg.message(OWNER_ID, '/model claude-fake');
    f.tg.message(OWNER_ID, '/help');
    await f.tg.waitFor('sendMessage', 3);
    const [usage, model, help] = sentTexts(f.tg);
    expect(usage).toContain('claude-fake: 1 calls, 10 in / 2 out');
    expect(usage).toContain('cost unknown');
    expect(model).toContain('now uses claude-fake');
    expect(f.host.sessionModels?.get(f.host.ownerSession())).toBe(0);
    expect(help).toContain('/usage');
    expect(f.model.requests).toHaveLength(0);
  });

  it('takes a command where Telegram marks one, at the start of the message, and nothing else', async () => {
    f = await telegramFixture();
    f.model.script.push({ text: 'About that status line.' });
    // Not at the start: no bot_command entity at offset 0, so it is a question for the model.
    f.tg.message(OWNER_ID, 'what does /status show?', {
      entities: [{ type: 'bot_command', offset: 10, length: 7 }],
    });
    await f.tg.waitFor('sendMessage', 1);
    f.tg.message(OWNER_ID, '/status');
    await f.tg.waitFor('sendMessage', 2);
    const [answer, status] = sentTexts(f.tg);
    expect(answer).toBe('About that status line.');
    expect(status).toMatch(/^Session chat\/default/);
    expect(f.model.requests).toHaveLength(1);
  });

  it('lets a contact in a group /new their session but not /model or /usage', async () => {
    const group = -1001;
    f = await telegramFixture({
      telegram: {
        allowedChatIds: [OWNER_ID, group],
        groups: { enabled: true, requireMention: false },
      },
    });
    const inGroup = (text: string) =>
      f!.tg.push({
        message: {
          message_id: 9,
          date: 1,
          chat: { id: group, type: 'supergroup', title: 'g' },
          from: { id: 222, is_bot: false, first_name: 'Bob' },
          text,
          entities: [{ type: 'bot_command', offset: 0, length: text.split(' ')[0]!.length }],
        },
      });
    inGroup('/model claude-fake');
    inGroup('/usage');
    inGroup('/new');
    await f.tg.waitFor('sendMessage', 3);
    const [model, usage, fresh] = sentTexts(f.tg, group);
    expect(model).toBe('Only the owner can do that.');
    expect(usage).toBe('Only the owner can do that.');
    expect(fresh).toContain('Fresh start');
    expect(f.host.sessionModels?.get(`telegram/${group}`)).toBeUndefined();
    expect(f.host.brain.assistant.sessions().map((s) => s.name)).toContain(`telegram/${group}`);
    expect(f.model.requests).toHaveLength(0);
  });
});
