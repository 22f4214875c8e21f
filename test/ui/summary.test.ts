import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOfflineSummarizer } from '../../src/knowledge/extract/summary-offline.js';
import { startFixture, type UiFixture } from './helpers.js';

let f: UiFixture;
beforeAll(async () => {
  f = await startFixture();
});
afterAll(() => f.close());

describe('the thread page of brain ui', () => {
  it('shows no summary before there is one, then the latest summary above the conversation', async () => {
    const thread = f.seeded.thread;
    const before = await (await f.get(`/threads/${thread}`)).text();
    expect(before).not.toContain('class="summary"');

    const older = (await f.brain.knowledge.summarize(thread, createOfflineSummarizer()))!;
    f.brain.messages.send({
      from: 'nova',
      to: 'helios',
      thread,
      body: 'We decided to roll back the canary & pin <v2>.',
    });
    const newer = (await f.brain.knowledge.summarize(thread, createOfflineSummarizer()))!;
    expect(newer.id).not.toBe(older.id);

    const html = await (await f.get(`/threads/${thread}`)).text();
    const summaryAt = html.indexOf('class="summary"');
    expect(summaryAt).toBeGreaterThan(0);
    expect(summaryAt).toBeLessThan(html.indexOf('id="messages"'));
    const block = html.slice(summaryAt, html.indexOf('id="messages"'));
    expect(block).toContain(`/provenance/${newer.id}`);
    expect(block).not.toContain(`/provenance/${older.id}`);
    // The summary's words are escaped like any message's.
    expect(block).toContain('decided to roll back the canary &amp; pin &lt;v2&gt;');
    expect(block).not.toContain('<v2>');
  });
});
