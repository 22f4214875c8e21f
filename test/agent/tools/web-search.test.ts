import { afterEach, describe, expect, it } from 'vitest';
import type { ToolContext } from '../../../agent/tools/types.js';
import { webSearchConfigSchema } from '../../../agent/tools/web-config.js';
import { createWebSearchTool } from '../../../agent/tools/web-search.js';
import { systemClock } from '../../../src/index.js';
import { sendJson, serveHttp, type Handler, type HttpFake } from '../../fakes/http.js';

const servers: HttpFake[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

interface Seen {
  url: string;
  token: string | undefined;
}

async function fake(answer: Handler) {
  const seen: Seen[] = [];
  const server = await serveHttp((req, res) => {
    seen.push({ url: req.url ?? '', token: req.headers['x-subscription-token'] as string });
    return answer(req, res);
  });
  servers.push(server);
  return { baseUrl: server.url, seen };
}

const ctx = {
  signal: new AbortController().signal,
  clock: systemClock,
} as unknown as ToolContext;

describe('web_search', () => {
  it('asks Brave with the key in X-Subscription-Token and lists the results, untrusted', async () => {
    const brave = await fake((_q, res) =>
      sendJson(res, 200, {
        web: {
          results: [
            {
              title: 'Boiler <strong>service</strong>',
              url: 'https://a.example/1',
              description: 'Once a year.',
            },
            { title: 'Second', url: 'https://b.example/2', description: 'More.' },
          ],
        },
      }),
    );
    const tool = createWebSearchTool(
      webSearchConfigSchema.parse({ provider: 'brave', baseUrl: brave.baseUrl }),
      { braveApiKey: 'brave-key' },
    );
    const r = await tool.run({ query: 'boiler service', count: 2 }, ctx);
    expect(brave.seen).toEqual([
      { url: '/res/v1/web/search?q=boiler+service&count=2', token: 'brave-key' },
    ]);
    expect(r.untrusted).toBe(true);
    expect(r.content).toBe(
      '1. Boiler service\n   https://a.example/1\n   Once a year.\n2. Second\n   https://b.example/2\n   More.',
    );
  });

  it('asks SearXNG for JSON and keeps count results', async () => {
    const searx = await fake((_q, res) =>
      sendJson(res, 200, {
        results: [
          { title: 'One', url: 'https://1.example/', content: 'first' },
          { title: 'Two', url: 'https://2.example/', content: 'second' },
        ],
      }),
    );
    const tool = createWebSearchTool(
      webSearchConfigSchema.parse({ provider: 'searxng', baseUrl: `${searx.baseUrl}/sx` }),
    );
    const r = await tool.run({ query: 'q', count: 1 }, ctx);
    expect(searx.seen[0]?.url).toBe('/sx/search?q=q&format=json');
    expect(r.content).toBe('1. One\n   https://1.example/\n   first');
  });

  it('is an error saying what to set when none is configured or the Brave key is missing', async () => {
    const none = await createWebSearchTool(undefined).run({ query: 'x' }, ctx);
    expect(none.isError).toBe(true);
    expect(none.content).toMatch(/not configured: set tools\.web\.search/);
    const nokey = await createWebSearchTool({ provider: 'brave' }, {}).run({ query: 'x' }, ctx);
    expect(nokey).toEqual({ content: 'web search: BRAVE_API_KEY is not set', isError: true });
  });

  it('reports an HTTP error or an answer of the wrong shape as an error result', async () => {
    const down = await fake((_q, res) => res.writeHead(503).end());
    const r = await createWebSearchTool({ provider: 'searxng', baseUrl: down.baseUrl }).run(
      { query: 'x' },
      ctx,
    );
    expect(r).toEqual({ content: 'web search: SearXNG answered HTTP 503', isError: true });
    const odd = await fake((_q, res) => sendJson(res, 200, { nope: true }));
    const r2 = await createWebSearchTool({ provider: 'searxng', baseUrl: odd.baseUrl }).run(
      { query: 'x' },
      ctx,
    );
    expect(r2.content).toMatch(/unexpected shape/);
  });

  it('refuses a searxng config without baseUrl, naming the key', () => {
    const r = webSearchConfigSchema.safeParse({ provider: 'searxng' });
    expect(r.success).toBe(false);
    expect(JSON.stringify(r.error?.issues[0]?.path)).toBe('["baseUrl"]');
  });
});
