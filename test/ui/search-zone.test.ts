import { afterEach, describe, expect, it } from 'vitest';
import { startFixture, type UiFixture } from './helpers.js';

let f: UiFixture | undefined;
afterEach(() => f?.close());

describe('the ui search', () => {
  it('reads times as said in the zone it is given, as the CLI does (BRAIN_TIME_ZONE)', async () => {
    // Kiritimati is UTC+14: its "yesterday" starts 14 hours before the UTC day, never the system's.
    f = await startFixture({ seed: false, timeZone: 'Pacific/Kiritimati' });
    f.brain.messages.send({ from: 'a', to: 'b', body: 'fees are due' });
    const page = await (await f.get('/search?q=fees+yesterday')).text();
    expect(page).toMatch(
      /read &quot;yesterday&quot; as \w+ \d{4}-\d{2}-\d{2}, 00:00–24:00 Pacific\/Kiritimati/,
    );
    const boxed = await (await f.get('/search?q=fees&since=yesterday')).text();
    expect(boxed).toContain('are due');
    f.brain.knowledge.remember({ agent: 'a', content: 'fees launch', occurred_at: '2020-01-06' });
    const event = await (await f.get('/search?q=fees&since=2020-01-06&until=2020-01-06')).text();
    expect(event).toMatch(
      /happened\s+<time datetime="2020-01-06T00:00:00.000Z">[^<]+<\/time> \(in the time asked\)/,
    );
    expect(event).not.toContain('are due');
  });

  it('hides the messages of archived threads when asked, and shows them otherwise', async () => {
    f = await startFixture({ seed: false });
    const old = f.brain.messages.send({ from: 'a', to: 'b', subject: 'old', body: 'fees of old' });
    f.brain.messages.send({ from: 'a', to: 'b', subject: 'new', body: 'fees of now' });
    f.brain.messages.setThreadStatus(old.thread_id, 'archived');
    const all = await (await f.get('/search?q=fees')).text();
    expect(all).toContain('of old');
    const active = await (await f.get('/search?q=fees&active=1')).text();
    expect(active).toContain('of now');
    expect(active).not.toContain('of old');
  });
});
