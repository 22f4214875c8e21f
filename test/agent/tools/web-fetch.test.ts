import { afterEach, describe, expect, it } from 'vitest';
import { isForbiddenAddress } from '../../../agent/tools/address.js';
import type { ToolContext } from '../../../agent/tools/types.js';
import { webConfigSchema } from '../../../agent/tools/web-config.js';
import { createWebFetchTool } from '../../../agent/tools/web-fetch.js';
import { systemClock } from '../../../src/index.js';
import { serveHttp, type Handler, type HttpFake } from '../../fakes/http.js';

const servers: HttpFake[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

interface Fake {
  port: number;
  hits: string[];
}

async function serve(handler: Handler): Promise<Fake> {
  const hits: string[] = [];
  const server = await serveHttp((req, res) => {
    hits.push(req.url ?? '');
    return handler(req, res);
  });
  servers.push(server);
  return { port: server.port, hits };
}

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

const PAGE = `<html><head><title>T</title><script>alert("x")</script></head>
<body><h1>Boilers</h1><p>The <b>boiler</b> needs a service every year.</p></body></html>`;

function tool(extra: Record<string, unknown> = {}) {
  return createWebFetchTool(webConfigSchema.parse(extra));
}

describe('isForbiddenAddress', () => {
  it('refuses loopback, private, link-local, CGNAT, multicast, unspecified and metadata addresses', () => {
    for (const ip of [
      '127.0.0.1',
      '127.255.0.9',
      '0.0.0.0',
      '0.1.2.3',
      '10.0.0.1',
      '172.16.0.1',
      '172.31.255.254',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '100.127.255.255',
      '224.0.0.1',
      '239.1.2.3',
      '255.255.255.255',
      '198.18.0.1',
      '::',
      '::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '::ffff:7f00:1',
      '::127.0.0.1',
      'fc00::1',
      'fd00:ec2::254',
      'fe80::1',
      'febf::1',
      'ff02::1',
      '64:ff9b::7f00:1',
      '2002:7f00:1::',
      'not an address',
    ])
      expect(isForbiddenAddress(ip), ip).toBe(true);
  });

  it('lets public addresses through', () => {
    for (const ip of [
      '8.8.8.8',
      '1.1.1.1',
      '172.32.0.1',
      '100.128.0.1',
      '2606:4700::1111',
      '2a00:1450::1',
    ])
      expect(isForbiddenAddress(ip), ip).toBe(false);
  });
});

describe('web_fetch', () => {
  it('returns a page from an allowed host as text, marked untrusted', async () => {
    const site = await serve((_q, res) => res.setHeader('content-type', 'text/html').end(PAGE));
    const r = await tool({ allowHosts: [`127.0.0.1:${site.port}`] }).run(
      { url: `http://127.0.0.1:${site.port}/p` },
      ctx(),
    );
    expect(r.isError).toBeUndefined();
    expect(r.untrusted).toBe(true);
    expect(r.content).toContain('BOILERS');
    expect(r.content).toContain('The boiler needs a service every year.');
    expect(r.content).not.toContain('<b>');
    expect(r.content).not.toContain('alert');
  });

  it('refuses 127.0.0.1, [::1] and localhost without sending anything', async () => {
    const site = await serve((_q, res) => res.end('hello'));
    for (const url of [
      `http://127.0.0.1:${site.port}/`,
      `http://[::1]:${site.port}/`,
      `http://localhost:${site.port}/`,
      `http://[::ffff:127.0.0.1]:${site.port}/`,
    ]) {
      const r = await tool().run({ url }, ctx());
      expect(r.isError, url).toBe(true);
      expect(r.content, url).toMatch(/refused/);
    }
    expect(site.hits).toEqual([]);
  });

  it('refuses schemes other than http and https', async () => {
    for (const url of ['file:///etc/passwd', 'ftp://example.com/', 'data:text/plain,hi']) {
      const r = await tool().run({ url }, ctx());
      expect(r.content, url).toMatch(/refused: only http and https/);
    }
  });

  it('refuses a redirect from an allowed server to a loopback server not named', async () => {
    const target = await serve((_q, res) => res.end('internal secret'));
    const site = await serve((_q, res) =>
      res.writeHead(302, { location: `http://localhost:${target.port}/admin` }).end(),
    );
    const r = await tool({ allowHosts: [`127.0.0.1:${site.port}`] }).run(
      { url: `http://127.0.0.1:${site.port}/go` },
      ctx(),
    );
    expect(r.isError).toBe(true);
    expect(r.content).toMatch(/refused/);
    expect(site.hits).toEqual(['/go']);
    expect(target.hits).toEqual([]);
  });

  it('follows at most five redirects', async () => {
    const site = await serve((req, res) => {
      const n = Number(req.url?.slice(1));
      res.writeHead(302, { location: `/${n + 1}` }).end();
    });
    const r = await tool({ allowHosts: [`127.0.0.1:${site.port}`] }).run(
      { url: `http://127.0.0.1:${site.port}/0` },
      ctx(),
    );
    expect(r.content).toMatch(/more than 5 redirects/);
    expect(site.hits).toHaveLength(6);
  });

  it('cuts a body at maxBytes and says so', async () => {
    const site = await serve((_q, res) => {
      res.setHeader('content-type', 'text/plain');
      res.end('a'.repeat(100_000));
    });
    const r = await tool({ allowHosts: [`127.0.0.1:${site.port}`], maxBytes: 4096 }).run(
      { url: `http://127.0.0.1:${site.port}/` },
      ctx(),
    );
    expect(r.content).toContain('[cut at 4096 bytes]');
    expect(r.content).toMatch(/\na{4096}\n/);
  });

  it('gives up on a server that stalls, with a timeout error', async () => {
    const site = await serve(() => {
      /* never answers */
    });
    const r = await tool({ allowHosts: [`127.0.0.1:${site.port}`], timeoutSeconds: 0.3 }).run(
      { url: `http://127.0.0.1:${site.port}/slow` },
      ctx(),
    );
    expect(r.isError).toBe(true);
    expect(r.content).toMatch(/timed out after 0.3 s/);
  });

  it('describes a binary response instead of dumping it', async () => {
    const site = await serve((_q, res) => {
      res.setHeader('content-type', 'image/png');
      res.end(Buffer.alloc(300));
    });
    const r = await tool({ allowHosts: [`127.0.0.1:${site.port}`] }).run(
      { url: `http://127.0.0.1:${site.port}/i.png` },
      ctx(),
    );
    expect(r.content).toContain('[image/png content, 300 bytes; not shown]');
  });
});
