import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ChatMessage } from '../../../../agent/models/types.js';
import { OWNER_ID, sentTexts, telegramFixture, type TelegramFixture } from './helpers.js';

/** Approvals, /stop, typing and 409: the parts where the update handler must not wait for a turn. */

let f: TelegramFixture | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await f?.close();
  f = undefined;
});

// Timers are faked but still move with real time, so the HTTP fakes and grammY keep working;
// a test jumps them forward to reach a timeout at once.
const fakeTimers = () =>
  vi.useFakeTimers({
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'],
    shouldAdvanceTime: true,
  });

const keyboardOf = (params: Record<string, unknown>) =>
  (
    params.reply_markup as {
      inline_keyboard: Array<Array<{ text: string; callback_data: string }>>;
    }
  ).inline_keyboard;

async function askedApproval(fx: TelegramFixture) {
  const calls = await fx.tg.waitFor('sendMessage', 1);
  const buttons = keyboardOf(calls[0]!.params)[0]!;
  return Object.fromEntries(buttons.map((b) => [b.text, b.callback_data]));
}

const lastToolResult = (fx: TelegramFixture, i: number) =>
  (fx.model.requests[i]!.body.messages as ChatMessage[]).at(-1)!.content[0] as {
    content: string;
    is_error?: boolean;
  };

describe('Telegram turns that wait', { timeout: 30_000 }, () => {
  it('runs a call once the owner presses Approve while the turn waits; a press by anyone else changes nothing', async () => {
    f = await telegramFixture();
    f.model.script.push(
      { toolUses: [{ name: 'run_command', input: { command: 'touch made.txt' } }] },
      { text: 'Made it.' },
    );
    f.tg.message(OWNER_ID, 'make the file');
    const buttons = await askedApproval(f);
    expect(Object.keys(buttons)).toEqual(['Approve', 'Always', 'Deny']);
    for (const data of Object.values(buttons))
      expect(Buffer.byteLength(data)).toBeLessThanOrEqual(64);
    expect(sentTexts(f.tg)[0]).toContain('<pre>run_command command: touch made.txt\n');

    f.tg.press(999, buttons.Approve!);
    const [refused] = await f.tg.waitFor('answerCallbackQuery', 1);
    expect(refused!.params.text).toMatch(/Only the owner/);
    expect(existsSync(join(f.workspace, 'made.txt'))).toBe(false);
    expect(f.model.requests).toHaveLength(1);

    f.tg.press(OWNER_ID, buttons.Approve!);
    await f.tg.waitFor('sendMessage', 2);
    expect(sentTexts(f.tg)[1]).toBe('Made it.');
    expect(existsSync(join(f.workspace, 'made.txt'))).toBe(true);
    const edited = f.tg.callsOf('editMessageText')[0]!.params;
    expect(keyboardOf(edited)).toEqual([]);
    expect(String(edited.text)).toMatch(/Approved/);
    expect(f.host.brain.assistant.approvals()[0]).toMatchObject({
      decision: 'approved',
      decided_by: 'owner',
    });
  });

  it('denies an unanswered ask at the timeout, says so in the question and removes its buttons', async () => {
    f = await telegramFixture({ file: { permissions: { approvalTimeoutSeconds: 60 } } });
    fakeTimers();
    f.model.script.push(
      { toolUses: [{ name: 'run_command', input: { command: 'touch late.txt' } }] },
      { text: 'I was not allowed.' },
    );
    f.tg.message(OWNER_ID, 'make it later');
    await askedApproval(f);
    await vi.advanceTimersByTimeAsync(60_000);
    const [closed] = await f.tg.waitFor('editMessageText', 1);
    expect(keyboardOf(closed!.params)).toEqual([]);
    // The seconds waited are measured by the system clock, which these fake timers leave alone.
    expect(String(closed!.params.text)).toMatch(/<i>Denied: no answer within \d+ s<\/i>$/);
    expect(String(closed!.params.text)).toContain('touch late.txt');
    await f.tg.waitFor('sendMessage', 2);
    expect(sentTexts(f.tg)[1]).toBe('I was not allowed.');
    expect(lastToolResult(f, 1)).toMatchObject({ is_error: true });
    expect(lastToolResult(f, 1).content).toMatch(/did not answer/);
    expect(existsSync(join(f.workspace, 'late.txt'))).toBe(false);
    expect(f.host.brain.assistant.approvals()[0]).toMatchObject({ decision: 'timeout' });
  });

  it('/stop cancels the running turn; the typing indicator is renewed while it runs and stops with it', async () => {
    f = await telegramFixture();
    fakeTimers();
    f.model.script.push({ error: 'stall' });
    f.tg.message(OWNER_ID, 'think for a long time');
    await vi.waitFor(() => expect(f!.model.requests).toHaveLength(1));
    expect(f.tg.callsOf('sendChatAction')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(4_000);
    await f.tg.waitFor('sendChatAction', 2);

    // What the model had written is shown as it streamed, in one message...
    expect(sentTexts(f.tg)).toEqual(['Let me think …']);
    f.tg.message(OWNER_ID, '/stop');
    await f.model.waitForClientClose(0);
    // ...which then says the turn stopped.
    const [edit] = await f.tg.waitFor('editMessageText', 1);
    expect(edit!.params.text).toBe('Stopped.');
    expect(sentTexts(f.tg)).toEqual(['Let me think …']);
    const typed = f.tg.callsOf('sendChatAction').length;
    await vi.advanceTimersByTimeAsync(12_000);
    expect(f.tg.callsOf('sendChatAction')).toHaveLength(typed);

    f.tg.message(OWNER_ID, '/stop');
    await f.tg.waitFor('sendMessage', 2);
    expect(sentTexts(f.tg)[1]).toBe('Nothing is running.');
  });

  it('/new points the chat at a fresh thread and /status names it', async () => {
    f = await telegramFixture();
    f.model.script.push({ text: 'first' });
    f.tg.message(OWNER_ID, 'hello');
    await f.tg.waitFor('sendMessage', 1);
    const before = f.host.brain.assistant
      .sessions()
      .find((s) => s.name === f!.host.ownerSession())!.thread_id;
    f.tg.message(OWNER_ID, '/new');
    await f.tg.waitFor('sendMessage', 2);
    const after = f.host.brain.assistant
      .sessions()
      .find((s) => s.name === f!.host.ownerSession())!.thread_id;
    expect(after).not.toBe(before);
    expect(sentTexts(f.tg)[1]).toContain(after);
    f.tg.message(OWNER_ID, '/status');
    await f.tg.waitFor('sendMessage', 3);
    expect(sentTexts(f.tg)[2]).toMatch(
      new RegExp(`Session chat/default \\(thread ${after}\\)\\nIdle\\.`),
    );
  });

  it('backs off after a 409 (another poller), says so, and polls again later', async () => {
    f = await telegramFixture({
      beforeStart: (tg) => {
        fakeTimers();
        tg.fail('getUpdates', { error: 'conflict' });
      },
    });
    await vi.waitFor(() =>
      expect(f!.lines.join('')).toMatch(/warn telegram\.conflict .*retry_in_ms=5000/),
    );
    f.model.script.push({ text: 'back again' });
    f.tg.message(OWNER_ID, 'are you there');
    // Backing off: no other getUpdates until the wait is over.
    expect(f.tg.callsOf('getUpdates')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(5_000);
    await f.tg.waitFor('sendMessage', 1);
    expect(sentTexts(f.tg)).toEqual(['back again']);
  });

  it('waits as long as a 429 says before sending again', async () => {
    f = await telegramFixture();
    fakeTimers();
    f.tg.fail('sendMessage', { error: 'rate_limited', retryAfter: 30 });
    f.model.script.push({ text: 'patiently' });
    f.tg.message(OWNER_ID, 'hello');
    await f.tg.waitFor('sendMessage', 1);
    await vi.advanceTimersByTimeAsync(29_000);
    expect(f.tg.callsOf('sendMessage')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1_000);
    await f.tg.waitFor('sendMessage', 2);
    expect(f.tg.callsOf('sendMessage')[1]!.params.text).toBe('patiently');
  });
});
