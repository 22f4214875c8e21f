import { statSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startFixture, type UiFixture } from './helpers.js';

let f: UiFixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

describe('looking is not reading', () => {
  it('viewing an inbox, a thread and search marks nothing read and writes nothing', async () => {
    f = await startFixture();
    const before = f.brain.messages.poll('nova').unread;
    expect(before).toBe(3);
    const wal = () => statSync(`${f!.temp.path}-wal`).size;
    f.brain.close(); // the seeding connection checkpoints as it closes: only the server is left
    const walBefore = wal();
    for (const path of [
      '/inbox/nova',
      `/threads/${f.seeded.thread}`,
      '/search?q=db-2',
      '/',
      '/agents',
    ]) {
      expect((await f.get(path)).status).toBe(200);
    }
    expect(wal()).toBe(walBefore);
    const again = await f.temp.reopen({ readonly: true });
    expect(again.messages.poll('nova').unread).toBe(3);
    expect(again.messages.inboxView({ agent: 'nova' }).read).toEqual([]);
  });
});

describe('a long thread', () => {
  it('pages a 10,000-message thread, showing the latest page first', async () => {
    f = await startFixture({ seed: false });
    const first = f.brain.messages.send({
      from: 'nova',
      to: 'helios',
      subject: 'long',
      body: 'message 0',
    });
    f.brain.batch(() => {
      for (let i = 1; i < 10_000; i++)
        f!.brain.messages.send({
          from: i % 2 ? 'helios' : 'nova',
          to: i % 2 ? 'nova' : 'helios',
          thread: first.thread_id,
          body: `message ${i}`,
        });
    });
    const latest = await (await f.get(`/threads/${first.thread_id}`)).text();
    expect(latest.match(/<li class="message /g)).toHaveLength(50);
    expect(latest).toContain('message 9999<');
    expect(latest).not.toContain('message 9949<');
    expect(latest).toMatch(/messages 9951–10000 of\s+10000/);
    const start = await (await f.get(`/threads/${first.thread_id}?offset=0`)).text();
    expect(start).toContain('message 0<');
    expect(start).toContain('message 49<');
    expect(start).not.toContain('message 50<');
    expect(start).toContain('data-append="no"');
    expect(start).toMatch(/href="\/threads\/thr_[^"?]+\?offset=50"/);
  });
});

describe('live updates', () => {
  it('streams a message written by another connection as a server-sent event without its body', async () => {
    f = await startFixture();
    const controller = new AbortController();
    const res = await f.get('/events', { signal: controller.signal });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const readUntil = async (needle: string) => {
      while (!text.includes(needle)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended before ${needle}`);
        text += decoder.decode(value);
      }
    };
    await readUntil(': connected');
    const sent = f.brain.messages.send({
      from: 'atlas',
      to: 'nova',
      thread: f.seeded.thread,
      body: 'secret body text',
    });
    f.timers.tick(); // the watcher's interval
    await readUntil(sent.id);
    expect(text).toContain(
      `event: message\ndata: {"id":"${sent.id}","thread_id":"${f.seeded.thread}","from":"atlas","recipients":["nova"]}`,
    );
    expect(text).not.toContain('secret body text');
    const fragment = await (await f.get(`/fragments/message/${sent.id}`)).text();
    expect(fragment).toContain('secret body text');
    expect(fragment).toContain(`id="${sent.id}"`);
    controller.abort();
  });
});
