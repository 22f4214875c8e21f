import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTILE } from './seed.js';
import { startFixture, type UiFixture } from './helpers.js';

let f: UiFixture;
beforeAll(async () => {
  f = await startFixture();
});
afterAll(() => f.close());

async function page(path: string): Promise<string> {
  const res = await f.get(path);
  expect(res.status, path).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  return squeeze(await res.text());
}

/** The page with whitespace around tags dropped and runs of it made one space (templates are formatted). */
function squeeze(html: string): string {
  return html.replace(/\s+/g, ' ').replace(/\s*(<|>)\s*/g, '$1');
}

describe('brain ui pages', () => {
  it('the start page lists the latest threads as links and the agents with unread counts', async () => {
    const html = await page('/');
    expect(html).toContain(
      `<a href="/threads/${f.seeded.thread}">Deploy of the search service</a>`,
    );
    expect(html).toContain(
      '<a class="agent" href="/inbox/nova">nova</a><a href="/inbox/nova" class="badge unread">3 unread</a>',
    );
    expect(html).toContain('name="viewport"');
  });

  it('the agents page shows unread, sent and received counts over all history and the latest messages', async () => {
    const html = await page('/agents');
    expect(html).toContain('<strong>0</strong>unread · 1 sent · 2 received · seen'); // helios read its inbox
    expect(html).not.toContain('10,000');
    expect(html).toContain('Nova, the planner');
    expect(html).toContain('I cleared old WAL files on db-2');
  });

  it('the threads list filters by tag and status', async () => {
    const byTag = await page('/threads?tag=deploy');
    expect(byTag).toContain('Deploy of the search service');
    expect(byTag).not.toContain('Hostile');
    const closed = await page('/threads?status=closed');
    expect(closed).toContain('No threads match.');
  });

  it('a bad filter is a 400 naming the parameter', async () => {
    const res = await f.get('/threads?status=gone');
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('status: must be one of active, archived, closed');
  });

  it('a thread reads as a conversation with priorities, receipts, acks and what was learned', async () => {
    const html = await page(`/threads/${f.seeded.thread}`);
    expect(html).toContain('<span class="badge prio-urgent">urgent</span>');
    expect(html).toMatch(/helios<\/a>: read<time/);
    expect(html).toMatch(/helios<\/a>acknowledged<time[^>]*>[^<]*<\/time>: on it/);
    expect(html).toContain('Learned from this message (1)');
    expect(html).toContain('db-2 fills its disk with WAL files when checkpoints stall');
    expect(html).toContain('messages 1–3 of 3');
  });

  it('an inbox shows unread and read messages', async () => {
    const html = await page('/inbox/nova');
    expect(html).toContain('Unread (3)');
    const helios = await page('/inbox/helios');
    expect(helios).toContain('Unread (0)');
    expect(helios).toMatch(/read<time/);
  });

  it('search finds messages, memories and atoms and names the retriever of each hit', async () => {
    const html = await page('/search?q=db-2+disk');
    expect(html).toContain('<span class="badge type-message">messages</span>');
    expect(html).toContain('<span class="badge type-stm">memories</span>');
    expect(html).toContain('<span class="badge retriever">fts #1</span>');
    const onlyStm = await page('/search?q=db-2+disk&types=stm');
    expect(onlyStm).not.toContain('<span class="badge type-message">');
    const fromAtlas = await page('/search?q=weekly&from=atlas&types=message');
    expect(fromAtlas).toContain('Noted for the [weekly] report.');
    const before = await page('/search?q=weekly&until=2000-01-01');
    expect(before).toContain('Nothing found.');
  });

  it('the provenance of an atom shows its chain as an SVG graph and its source message in its thread', async () => {
    const html = await page(`/provenance/${f.seeded.atoms[1]}`);
    expect(html).toMatch(/<svg role="img"/);
    expect(html).toContain('4 atoms, 3 links');
    for (const type of ['causes', 'enables', 'precedes']) expect(html).toContain(`>${type}</text>`);
    expect(html).toContain('Source message');
    expect(html).toContain('class="message focus"');
  });

  it('the provenance of a message lists what was learned from it', async () => {
    const html = await page(`/provenance/${f.seeded.message}`);
    expect(html).toContain('Learned from this message');
    expect(html).toContain('disk full on db-2');
    const stm = await page(`/provenance/${f.seeded.stm}`);
    expect(stm).toContain('Provenance of a memory');
    expect(stm).toContain('I cleared old WAL files on db-2');
  });

  it('an unknown id is a 404 page', async () => {
    expect((await f.get('/provenance/atm_000000000000')).status).toBe(404);
    expect((await f.get('/threads/thr_00000000-0000-0000-0000-000000000000')).status).toBe(404);
    expect((await f.get('/nowhere')).status).toBe(404);
    expect((await f.get('/inbox/%E0%A4%A')).status).toBe(400);
    expect((await f.get('/inbox/bad%20name')).status).toBe(400);
  });

  it('the assistant page shows sessions, a usage chart and pending approvals as POST forms', async () => {
    const html = await page('/assistant');
    expect(html).toContain('chat/default');
    expect(html).toContain('Tokens per day and model');
    expect(html).toMatch(
      /<rect [^>]*fill="#4062bb"><title>2026-11-20 claude-sonnet: 1200 in, 300 out/,
    );
    expect(html).toContain(`<form method="post" action="/approvals/${f.seeded.approval}"`);
    expect(html).toContain('<a href="/assistant">Assistant</a>');
  });

  it('the assistant page shows the estimated cost per day and the scheduled work, escaped', async () => {
    const html = await page('/assistant');
    // 1M input tokens at $3 and 100K output at $15 per million: $4.50; an unpriced model: unknown.
    expect(html).toMatch(/<td>2026-11-22<\/td>[\s\S]*?<td class="num">4\.5000<\/td>/);
    expect(html).toMatch(/<td>2026-11-20<\/td>[\s\S]*?<td class="num">unknown<\/td>/);
    expect(html).toContain('<code>morning-briefing</code>');
    expect(html).toContain('Renew the passport');
    expect(html).toContain('reminder &lt;script&gt;');
    expect(html).not.toContain('reminder <script>');
  });

  it('sets the security headers on every answer', async () => {
    for (const path of ['/', '/static/app.js', '/nowhere']) {
      const res = await f.get(path);
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('same-origin');
    }
  });

  it('pages carry no inline script: only the script file', async () => {
    const html = await page('/');
    expect(html.match(/<script[^>]*>/g)).toEqual(['<script src="/static/app.js" defer>']);
    expect(await (await f.get('/static/app.js')).text()).toContain('EventSource');
  });
});

describe('hostile content', () => {
  const forbidden = [
    HOSTILE.script,
    '<img src=x onerror',
    'href="javascript:',
    '<a href="javascript',
  ];

  it.each([
    ['the start page', () => '/'],
    ['the agents page', () => '/agents'],
    ['the threads list', () => '/threads'],
    ['the hostile thread', () => `/threads/${f.seeded.hostileThread}`],
    ['the inbox', () => '/inbox/nova'],
    ['search', () => '/search?q=pwned+script+img'],
    ['a message provenance', () => `/provenance/${f.seeded.hostileThread}`],
  ])('%s shows it as text', async (_name, path) => {
    const res = await f.get(path());
    const html = await res.text();
    for (const bad of forbidden) expect(html).not.toContain(bad);
  });

  it('shows the hostile body, subject, tag and display name escaped', async () => {
    const thread = await page(`/threads/${f.seeded.hostileThread}`);
    expect(thread).toContain('&lt;script&gt;window.__pwned = 1&lt;/script&gt;');
    expect(thread).toContain('&lt;img src=x onerror=&quot;window.__pwned = 2&quot;&gt;');
    expect(thread).toContain('&lt;a href=&quot;javascript:window.__pwned=3&quot;&gt;');
    expect(thread).toContain(HOSTILE.rtl);
    expect(thread).toContain(HOSTILE.long);
    expect(thread).toContain('<title>Hostile &lt;script&gt;');
    const agents = await page('/agents');
    expect(agents).toContain('Helios &lt;img src=x onerror=');
    const threads = await page('/threads');
    expect(threads).toContain('href="/threads?tag=%3Cimg');
  });

  it('a query of markup is echoed escaped in the search box', async () => {
    const html = await page(`/search?q=${encodeURIComponent('"><script>alert(1)</script>')}`);
    expect(html).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
    expect(html).not.toContain('<script>alert(1)');
  });
});
