import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { request } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { serveHttp, type HttpOptions, type RunningHttpServer } from '../../mcp/http.js';
import { silentLogger } from '../../mcp/log.js';
import { parseTokens } from '../../mcp/access.js';
import { tempBrain, type TempBrain } from '../helpers.js';
import { call, connectClient } from './helpers.js';

const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef';
const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 't', version: '1' },
  },
};

let t: TempBrain;
let server: RunningHttpServer;
const clients: Client[] = [];

async function start(options: Partial<HttpOptions> = {}) {
  server = await serveHttp(t.brain, {
    host: '127.0.0.1',
    port: 0,
    tokens: parseTokens(`# test tokens\n${ALICE} alice\n${BOB} bob\n`),
    log: silentLogger,
    ...options,
  });
  return server;
}

async function connect(token?: string): Promise<Client> {
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers },
  });
  const client = await connectClient(transport);
  clients.push(client);
  return client;
}

/** A raw POST, for what the SDK client would never send. */
function post(headers: Record<string, string>, body: string = JSON.stringify(INIT)) {
  return fetch(server.url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...headers,
    },
    body,
  });
}

beforeEach(async () => {
  t = await tempBrain();
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  await server?.close();
  t.cleanup();
});

describe('brain serve (streamable HTTP on 127.0.0.1)', () => {
  it('refuses a request without a token, or with a wrong one', async () => {
    await start();
    const none = await post({});
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await none.json()).toMatchObject({ error: { message: /unauthorized/ } });
    expect((await post({ Authorization: 'Bearer not-a-real-token-at-all' })).status).toBe(401);
    expect((await post({ Authorization: `Basic ${ALICE}` })).status).toBe(401);
    await expect(connect('wrong-token-0123456789abcdef')).rejects.toThrow();
    expect(server.sessions()).toBe(0);
  });

  it('serves the right token as its agent, whatever the arguments say', async () => {
    await start();
    const alice = await connect(ALICE);
    const sent = await call(alice, 'send_message', { to: 'bob', body: 'over http' });
    expect(t.brain.messages.getMessage(sent.id)!.from).toBe('alice');
    const spoof = await alice.callTool({
      name: 'send_message',
      arguments: { from: 'bob', to: 'carol', body: 'x' },
    });
    expect(spoof.isError).toBe(true);
    expect(server.sessions()).toBe(1);
  });

  it('refuses a foreign Origin even with the right token; allows a loopback one', async () => {
    await start();
    const foreign = await post({
      Authorization: `Bearer ${ALICE}`,
      Origin: 'http://evil.example:7337',
    });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ error: { message: /Origin/ } });
    expect((await post({ Authorization: `Bearer ${ALICE}`, Origin: 'null' })).status).toBe(403);
    const local = await post({ Authorization: `Bearer ${ALICE}`, Origin: 'http://localhost:5173' });
    expect(local.status).toBe(200);
    expect(local.headers.get('mcp-session-id')).toBeTruthy();
  });

  it('allows an Origin the operator listed', async () => {
    await start({ allowedOrigins: ['https://app.example'] });
    const r = await post({ Authorization: `Bearer ${ALICE}`, Origin: 'https://app.example' });
    expect(r.status).toBe(200);
  });

  it('refuses a non-loopback Host (DNS rebinding)', async () => {
    await start();
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        server.url,
        {
          method: 'POST',
          headers: {
            Host: `evil.example:${server.port}`,
            Authorization: `Bearer ${ALICE}`,
            'Content-Type': 'application/json',
            Accept: 'application/json, text/event-stream',
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(INIT));
    });
    expect(status).toBe(403);
  });

  it('limits the request size', async () => {
    await start({ maxRequestBytes: 2048 });
    const big = JSON.stringify({ ...INIT, params: { ...INIT.params, pad: 'x'.repeat(4096) } });
    const r = await post({ Authorization: `Bearer ${ALICE}` }, big);
    expect(r.status).toBe(413);
    expect(server.sessions()).toBe(0);
    expect((await post({ Authorization: `Bearer ${ALICE}` }, '{"not json')).status).toBe(400);
  });

  it("will not let one agent's token drive another agent's session", async () => {
    await start();
    const init = await post({ Authorization: `Bearer ${ALICE}` });
    const session = init.headers.get('mcp-session-id')!;
    const hijack = await post(
      { Authorization: `Bearer ${BOB}`, 'mcp-session-id': session },
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    );
    expect(hijack.status).toBe(403);
    const unknown = await post(
      { Authorization: `Bearer ${ALICE}`, 'mcp-session-id': 'no-such-session' },
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    );
    expect(unknown.status).toBe(404);
  });

  it('carries a conversation between two agents, with push to a subscriber', async () => {
    await start();
    const alice = await connect(ALICE);
    const bob = await connect(BOB);
    const updated = new Promise<string>((resolve) =>
      bob.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => resolve(n.params.uri)),
    );
    await bob.subscribeResource({ uri: 'brain://inbox/bob' });
    const question = await call(alice, 'send_message', { to: 'bob', body: 'ready to deploy?' });
    expect(await updated).toBe('brain://inbox/bob');
    const inbox = await call(bob, 'read_inbox');
    expect(inbox.messages.map((m: any) => [m.id, m.from])).toEqual([[question.id, 'alice']]);
    const answer = await call(bob, 'send_message', {
      body: 'yes',
      reply_to: question.id,
      to: 'alice',
    });
    expect(answer.thread_id).toBe(question.thread_id);
    expect(await call(alice, 'poll_inbox')).toEqual({ agent: 'alice', unread: 1 });
    expect(server.sessions()).toBe(2);
  });

  it('ends a session on DELETE; sweeps idle sessions but not ones with an open stream', async () => {
    await start({ idleSessionMs: 1000 });
    const alice = await connect(ALICE);
    await connect(BOB); // the SDK client keeps a GET event stream open
    expect(server.sessions()).toBe(2);
    await (alice.transport as StreamableHTTPClientTransport).terminateSession();
    expect(server.sessions()).toBe(1);
    const idle = await post({ Authorization: `Bearer ${ALICE}` }); // initialize, then nothing
    expect(idle.status).toBe(200);
    expect(server.sessions()).toBe(2);
    expect(await server.sweepIdle(Date.now())).toBe(0);
    expect(await server.sweepIdle(Date.now() + 60_000)).toBe(1);
    expect(server.sessions()).toBe(1);
  });

  it('says so when the port is taken', async () => {
    await start();
    await expect(start({ port: server.port })).rejects.toThrow(/--port: \d+ is already in use/);
  });

  it('refuses more sessions than allowed', async () => {
    await start({ maxSessions: 1 });
    await connect(ALICE);
    expect((await post({ Authorization: `Bearer ${BOB}` })).status).toBe(503);
  });
});

describe('serving without tokens', () => {
  it('on loopback, acts as the one --agent', async () => {
    await start({ tokens: undefined, agent: 'solo' });
    const client = await connect();
    const sent = await call(client, 'send_message', { to: 'bob', body: 'hi' });
    expect(t.brain.messages.getMessage(sent.id)!.from).toBe('solo');
  });

  it('refuses to start beyond loopback, or without an agent', async () => {
    await expect(
      serveHttp(t.brain, { host: '0.0.0.0', port: 0, agent: 'solo', log: silentLogger }),
    ).rejects.toThrow(/--tokens: is required to serve beyond loopback/);
    await expect(
      serveHttp(t.brain, { host: '127.0.0.1', port: 0, log: silentLogger }),
    ).rejects.toThrow(/--agent: is required without --tokens/);
  });
});
