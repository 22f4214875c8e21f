import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLiveReply, type LiveTransport } from '../../../agent/channels/live-reply.js';

/** What a chat shows: each message's text by id, and every call in order. */
function recordingChat(options: { failEditsFrom?: number } = {}) {
  const messages = new Map<string, { text: string; final: boolean }>();
  const calls: string[] = [];
  let next = 1;
  let edits = 0;
  const transport: LiveTransport = {
    async send(text, index, final) {
      const id = String(next++);
      messages.set(id, { text, final });
      calls.push(`send#${index} ${final ? 'final' : 'live'} ${text}`);
      return id;
    },
    async edit(id, text, final) {
      edits++;
      if (options.failEditsFrom !== undefined && edits >= options.failEditsFrom)
        throw new Error('400: message can not be edited');
      messages.set(id, { text, final });
      calls.push(`edit ${id} ${final ? 'final' : 'live'} ${text}`);
    },
    async remove(id) {
      messages.delete(id);
      calls.push(`remove ${id}`);
    },
  };
  return { transport, calls, shown: () => [...messages.values()].map((m) => m.text) };
}

afterEach(() => vi.useRealTimers());

describe('a reply shown as it streams', () => {
  it('is sent once, as it is, when it is done before the first update is due', async () => {
    vi.useFakeTimers();
    const chat = recordingChat();
    const live = createLiveReply({ transport: chat.transport, limit: 100, everyMs: 1000 });
    live.onText('Hello');
    live.onText(' there');
    await live.finish(['<b>Hello</b> there']);
    await vi.advanceTimersByTimeAsync(5000);
    expect(chat.calls).toEqual(['send#0 final <b>Hello</b> there']);
  });

  it('updates one message at most once per interval, then edits it into the finished reply', async () => {
    vi.useFakeTimers();
    const chat = recordingChat();
    const live = createLiveReply({ transport: chat.transport, limit: 100, everyMs: 1000 });
    live.onText('One');
    for (let i = 0; i < 20; i++) live.onText('.');
    await vi.advanceTimersByTimeAsync(999);
    expect(chat.calls).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(chat.calls).toEqual([`send#0 live One${'.'.repeat(20)} …`]);
    live.onText(' two');
    await vi.advanceTimersByTimeAsync(500);
    live.onText(' three');
    await vi.advanceTimersByTimeAsync(500);
    expect(chat.calls).toHaveLength(2);
    expect(chat.calls[1]).toBe(`edit 1 live One${'.'.repeat(20)} two three …`);
    // Nothing new: no update.
    await vi.advanceTimersByTimeAsync(5000);
    expect(chat.calls).toHaveLength(2);
    await live.finish(['One two three.']);
    expect(chat.calls.at(-1)).toBe('edit 1 final One two three.');
    expect(chat.shown()).toEqual(['One two three.']);
  });

  it('goes on in a new message past the limit, and removes what the finished reply does not need', async () => {
    vi.useFakeTimers();
    const chat = recordingChat();
    const live = createLiveReply({ transport: chat.transport, limit: 50, everyMs: 100 });
    live.onText(`${'a'.repeat(40)} ${'b'.repeat(40)} ${'c'.repeat(40)}`);
    await vi.advanceTimersByTimeAsync(100);
    expect(chat.shown()).toHaveLength(3);
    for (const text of chat.shown()) expect(text.length).toBeLessThanOrEqual(50);
    expect(chat.shown()[2]).toMatch(/c+ …$/);
    // The finished reply is shorter (the endpoint started over): two messages, not three.
    await live.finish(['first part', 'second part']);
    expect(chat.shown()).toEqual(['first part', 'second part']);
    expect(chat.calls.at(-1)).toBe('remove 3');
  });

  it('moves below a prompt posted under it, so the answer is the newest message', async () => {
    vi.useFakeTimers();
    const chat = recordingChat();
    const live = createLiveReply({ transport: chat.transport, limit: 100, everyMs: 100 });
    live.onText('Checking the disk');
    await vi.advanceTimersByTimeAsync(100);
    live.moved();
    live.onText(' before I delete anything');
    await vi.advanceTimersByTimeAsync(100);
    expect(chat.calls).toEqual([
      'send#0 live Checking the disk …',
      'remove 1',
      'send#0 live Checking the disk before I delete anything …',
    ]);
    await live.finish(['Deleted.']);
    expect(chat.shown()).toEqual(['Deleted.']);
  });

  it('starts over when the answer does', async () => {
    vi.useFakeTimers();
    const chat = recordingChat();
    const live = createLiveReply({ transport: chat.transport, limit: 100, everyMs: 100 });
    live.onText('From the first endpoint');
    await vi.advanceTimersByTimeAsync(100);
    live.onRestart();
    live.onText('From the second');
    await vi.advanceTimersByTimeAsync(100);
    expect(chat.shown()).toEqual(['From the second …']);
  });

  it('sends the finished reply afresh when the shown message can no longer be edited', async () => {
    vi.useFakeTimers();
    const errors: unknown[] = [];
    const chat = recordingChat({ failEditsFrom: 1 });
    const live = createLiveReply({
      transport: chat.transport,
      limit: 100,
      everyMs: 100,
      onError: (err) => errors.push(err),
    });
    live.onText('Part');
    await vi.advanceTimersByTimeAsync(100);
    live.onText(' more');
    await vi.advanceTimersByTimeAsync(100);
    // The failed edit stops the streaming; nothing more is tried until the end.
    live.onText(' and more');
    await vi.advanceTimersByTimeAsync(1000);
    await live.finish(['The whole reply.']);
    expect(chat.shown()).toEqual(['The whole reply.']);
    expect(chat.calls).toEqual(['send#0 live Part …', 'remove 1', 'send#0 final The whole reply.']);
    expect(errors).toHaveLength(1);
  });
});
