import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { serveHttp, type HttpOptions, type RunningHttpServer } from '../../mcp/http.js';
import { silentLogger } from '../../mcp/log.js';
import { parseTokens } from '../../mcp/access.js';
import { tempBrain, type TempBrain } from '../helpers.js';
import { call, connectClient } from '../mcp/helpers.js';
import { tally } from './tally.js';

const t = tally('http');
const ALICE = 'alice-token-0123456789abcdef';
const ALICE_LAPTOP = 'alice-laptop-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef';
const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 't', version: '1' },
  },
});

let brain: TempBrain;
let server: RunningHttpServer;
const clients: Client[] = [];

beforeEach(async () => {
  brain = await tempBrain();
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  await server?.close();
  brain.cleanup();
});

async function start(options: Partial<HttpOptions> = {}) {
  server = await serveHttp(brain.brain, {
    host: '127.0.0.1',
    port: 0,
    tokens: parseTokens(`${ALICE} alice\n${ALICE_LAPTOP} alice\n${BOB} bob\n`),
    log: silentLogger,
    ...options,
  });
}

/** The real SDK client over HTTP, as an agent's MCP host connects. */
async function connect(token: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = await connectClient(transport);
  clients.push(client);
  return client;
}

/** A bare initialize: a session that opens no stream and sends nothing more. */
function initialize(token: string) {
  return fetch(server.url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      Authorization: `Bearer ${token}`,
    },
    body: INIT,
  });
}

describe('MCP sessions over HTTP are capped per token', () => {
  it("refuses one token's session past the cap with 429 and a JSON-RPC error, while another token is served", async () => {
    await start({ maxSessionsPerToken: 3 });
    const mine = [await connect(ALICE), await connect(ALICE), await connect(ALICE)];
    const refused = await initialize(ALICE);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({
      jsonrpc: '2.0',
      error: {
        code: -32000,
        message: expect.stringMatching(/too many open sessions for this token/),
      },
      id: null,
    });
    await expect(connect(ALICE)).rejects.toThrow(/429|too many/);
    t.refused();
    const bob = await connect(BOB);
    expect(await call(bob, 'poll_inbox')).toEqual({ agent: 'bob', unread: 0 });
    // Another token of the same agent has slots of its own.
    await connect(ALICE_LAPTOP);
    expect(server.sessions()).toBe(5);

    // A session that ends frees its slot.
    await (mine[0]!.transport as StreamableHTTPClientTransport).terminateSession();
    expect(server.sessions()).toBe(4);
    const again = await connect(ALICE);
    expect(await call(again, 'poll_inbox')).toEqual({ agent: 'alice', unread: 0 });
  });

  it('frees the slots of sessions that idle out', async () => {
    await start({ maxSessionsPerToken: 2, idleSessionMs: 1000 });
    expect((await initialize(ALICE)).status).toBe(200);
    expect((await initialize(ALICE)).status).toBe(200);
    expect((await initialize(ALICE)).status).toBe(429);
    t.refused();
    expect(await server.sweepIdle(Date.now() + 60_000)).toBe(2);
    expect((await initialize(ALICE)).status).toBe(200);
  });

  it('holds the cap against a burst of initializes sent at once', async () => {
    await start({ maxSessionsPerToken: 4 });
    const statuses = (await Promise.all(Array.from({ length: 20 }, () => initialize(BOB)))).map(
      (r) => r.status,
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(4);
    expect(statuses.filter((s) => s === 429)).toHaveLength(16);
    expect(server.sessions()).toBe(4);
    expect((await initialize(ALICE)).status).toBe(200);
    t.refused();
  });

  it('allows 16 sessions a token by default', async () => {
    await start();
    for (let i = 0; i < 16; i++) expect((await initialize(ALICE)).status).toBe(200);
    expect((await initialize(ALICE)).status).toBe(429);
    expect((await initialize(BOB)).status).toBe(200);
    t.refused();
  });
});
