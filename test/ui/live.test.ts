import { afterEach, describe, expect, it } from 'vitest';
import { wordEmbedder } from '../embedders.js';
import { startFixture, type UiFixture } from './helpers.js';

let f: UiFixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

/** Open /events and read it until a needle shows. */
async function openStream(fixture: UiFixture) {
  const controller = new AbortController();
  const res = await fixture.get('/events', { signal: controller.signal });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const until = async (needle: string) => {
    while (!text.includes(needle)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`stream ended before ${needle}`);
      text += decoder.decode(value);
    }
    return text;
  };
  await until(': connected');
  return { until, text: () => text, close: () => controller.abort() };
}

describe('live receipts and memories', () => {
  it('streams a read, an ack and a memory made by another connection, without any text of them', async () => {
    f = await startFixture();
    const stream = await openStream(f);
    const { thread, message } = f.seeded;
    f.brain.messages.send({ from: 'nova', to: 'atlas', thread, body: 'ping' }); // someone else's message
    f.timers.tick();
    const reply = f.brain.messages.send({ from: 'atlas', to: 'nova', thread, body: 'pong' });
    f.brain.messages.markRead({ message_id: reply.id, agent: 'nova' });
    f.brain.messages.ack({ message_id: reply.id, agent: 'nova', body: 'private ack words' });
    const stm = f.brain.knowledge.remember({
      agent: 'nova',
      content: 'private memory words',
      source_message_id: message,
    });
    f.timers.tick();
    const text = await stream.until(stm.id);
    expect(text).toContain(
      `event: receipt\ndata: {"kind":"read","message_id":"${reply.id}","thread_id":"${thread}","agent":"nova"}`,
    );
    expect(text).toContain(
      `event: receipt\ndata: {"kind":"ack","message_id":"${reply.id}","thread_id":"${thread}","agent":"nova"}`,
    );
    expect(text).toContain(
      `event: memory\ndata: {"type":"stm","id":"${stm.id}","agent":"nova","source_message_id":"${message}","thread_id":"${thread}"}`,
    );
    expect(text).not.toContain('private');
    stream.close();
  });

  it('a message fragment carries its receipts, acks and what was learned, as the thread page draws it', async () => {
    f = await startFixture();
    const { thread } = f.seeded;
    const reply = f.brain.messages.send({ from: 'atlas', to: 'nova', thread, body: 'pong' });
    const before = await (await f.get(`/fragments/message/${reply.id}`)).text();
    expect(before).toMatch(/nova<\/a>:\s*<strong>unread<\/strong>/);
    f.brain.messages.markRead({ message_id: reply.id, agent: 'nova' });
    f.brain.messages.ack({ message_id: reply.id, agent: 'nova', body: 'seen it' });
    f.brain.knowledge.remember({
      agent: 'nova',
      content: 'atlas says pong',
      source_message_id: reply.id,
    });
    const after = await (await f.get(`/fragments/message/${reply.id}`)).text();
    expect(after).toMatch(/nova<\/a>:\s*read <time/);
    expect(after).toMatch(/acknowledged <time[^>]*>[^<]*<\/time>: seen it/);
    expect(after).toContain('atlas says pong');
  });
});

describe('search on the page', () => {
  it('searches by words and meaning when the brain has vectors and the embedder answers', async () => {
    const embedder = wordEmbedder(['disk', 'wal', 'deploy']);
    f = await startFixture({ searchEmbedder: () => Promise.resolve(embedder) });
    await f.brain.embed.embedQueued(embedder);
    const html = await (await f.get('/search?q=disk')).text();
    expect(html).toMatch(/retrievers: fts, vector/);
    expect(html).toContain('<span class="badge retriever">vector #1</span>');
    expect(embedder.calls.at(-1)).toEqual(['disk']);
  });

  it('falls back to words with a notice when the embedder does not answer', async () => {
    const embedder = wordEmbedder(['disk', 'wal', 'deploy'], { failOn: 'disk' });
    f = await startFixture({ searchEmbedder: () => Promise.resolve(embedder) });
    await f.brain.embed.embedQueued(wordEmbedder(['disk', 'wal', 'deploy']));
    const html = await (await f.get('/search?q=disk')).text();
    expect(html).toMatch(/retrievers: fts\s*</);
    expect(html).toContain('class="notice"');
    expect(html).toContain('<span class="badge retriever">fts #1</span>');
  });

  it('says so and searches by words when the embedder cannot be made', async () => {
    f = await startFixture({
      searchEmbedder: () => Promise.reject(new Error('no model file')),
    });
    const html = await (await f.get('/search?q=disk')).text();
    expect(html).toContain('no query embedder (no model file): searched by words only');
    expect(html).toMatch(/retrievers: fts\s*</);
  });
});
