import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolContext } from '../../agent/tools/types.js';
import { webConfigSchema } from '../../agent/tools/web-config.js';
import { createWebFetchTool } from '../../agent/tools/web-fetch.js';
import { systemClock } from '../../src/index.js';
import { serveHttp, type HttpFake } from '../fakes/http.js';
import { tally } from './tally.js';

/**
 * web_fetch against the machine's own services: an "internal" server listens on every address of
 * this host (IPv4 and IPv6) and records what reaches it. Every spelling of a loopback, private,
 * link-local or unspecified address, a local name, another scheme, and a redirect from an allowed
 * site to any of them must leave it without a single request.
 */

const t = tally('ssrf');
let internal: HttpFake;
let site: HttpFake;
const hits: string[] = [];
let port = 0;
let sitePort = 0;
/** Where the allowed site redirects the next request. */
let redirectTo = '';

beforeAll(async () => {
  internal = await serveHttp(
    (req, res) => {
      hits.push(`${req.headers.host} ${req.url}`);
      res.end('internal secret');
    },
    { host: '::' },
  );
  port = internal.port;
  // A header carries ASCII only: other characters go percent-encoded, as a server would send them.
  site = await serveHttp((_req, res) =>
    res
      .writeHead(302, {
        location: redirectTo.replace(/[^\x20-\x7e]/g, (c) => encodeURIComponent(c)),
      })
      .end(),
  );
  sitePort = site.port;
});
afterAll(async () => {
  for (const s of [internal, site]) await s.close();
});

function ctx(): ToolContext {
  return {
    brain: undefined as never,
    agent: 'assistant',
    owner: 'ann',
    threadId: 'thr_x',
    session: 'chat/default',
    turnMessageId: 'msg_x',
    workspace: '/nonexistent',
    signal: new AbortController().signal,
    clock: systemClock,
  };
}

/** Spellings of this machine and its neighbours, each with the internal server's port. */
const TARGETS = (p: number): string[] => [
  `http://127.0.0.1:${p}/`,
  `http://127.1:${p}/`,
  `http://127.0.1:${p}/`,
  `http://127.255.255.254:${p}/`,
  `http://2130706433:${p}/`,
  `http://0x7f000001:${p}/`,
  `http://0x7f.0.0.1:${p}/`,
  `http://0177.0.0.1:${p}/`,
  `http://017700000001:${p}/`,
  `http://0:${p}/`,
  `http://0.0.0.0:${p}/`,
  `http://[::1]:${p}/`,
  `http://[::]:${p}/`,
  `http://[0:0:0:0:0:0:0:1]:${p}/`,
  `http://[::ffff:127.0.0.1]:${p}/`,
  `http://[::ffff:7f00:1]:${p}/`,
  `http://[0:0:0:0:0:ffff:127.0.0.1]:${p}/`,
  `http://[::127.0.0.1]:${p}/`,
  `http://localhost:${p}/`,
  `http://LOCALHOST:${p}/`,
  `http://localhost.:${p}/`,
  `http://sub.localhost:${p}/`,
  `http://ip6-localhost:${p}/`,
  `http://user:pass@127.0.0.1:${p}/`,
  `http://evil.example@127.0.0.1:${p}/`,
  `http://127.0.0.1:${p}#@evil.example/`,
  `http://127.0.0.1%2f:${p}/`,
  `http://%31%32%37.0.0.1:${p}/`,
  `http://１２７.０.０.１:${p}/`,
  `http://192.0.2.2:${p}/`,
  `http://[fd00::2]:${p}/`,
  `http://10.0.0.1:${p}/`,
  `http://172.16.0.1:${p}/`,
  `http://192.168.0.1:${p}/`,
  `http://169.254.169.254/latest/meta-data/`,
  `http://[fe80::1]:${p}/`,
  `http://100.64.0.1:${p}/`,
  `http://[64:ff9b::7f00:1]:${p}/`,
  `http://[2002:7f00:1::]:${p}/`,
  `https://127.0.0.1:${p}/`,
];

const SCHEMES = (p: number): string[] => [
  'file:///etc/passwd',
  `ftp://127.0.0.1:${p}/`,
  `gopher://127.0.0.1:${p}/_GET%20/`,
  'data:text/plain,secret',
  `ws://127.0.0.1:${p}/`,
  'javascript:alert(1)',
];

describe('web_fetch reaches none of this machine’s services', () => {
  const fetchTool = () => createWebFetchTool(webConfigSchema.parse({ timeoutSeconds: 3 }));

  it('refuses every spelling of a local or private address, asked directly', async () => {
    for (const url of [...TARGETS(port), ...SCHEMES(port)]) {
      const before = hits.length;
      const r = await fetchTool().run({ url }, ctx());
      expect(r.isError, url).toBe(true);
      expect(hits.slice(before), url).toEqual([]);
      t.refused();
    }
  });

  it('refuses each of them behind a redirect from an allowed site', async () => {
    const allowed = createWebFetchTool(
      webConfigSchema.parse({ allowHosts: [`127.0.0.1:${sitePort}`], timeoutSeconds: 3 }),
    );
    for (const target of [...TARGETS(port), ...SCHEMES(port)]) {
      redirectTo = target;
      const before = hits.length;
      const r = await allowed.run({ url: `http://127.0.0.1:${sitePort}/go` }, ctx());
      expect(r.isError, target).toBe(true);
      expect(hits.slice(before), target).toEqual([]);
      t.refused();
    }
  });

  it('still fetches the host the config allows (the control: the server is reachable)', async () => {
    const allowed = createWebFetchTool(
      webConfigSchema.parse({ allowHosts: [`127.0.0.1:${port}`], timeoutSeconds: 3 }),
    );
    const r = await allowed.run({ url: `http://127.0.0.1:${port}/ok` }, ctx());
    expect(r.content).toContain('internal secret');
    expect(hits.at(-1)).toMatch(/\/ok$/);
  });
});
