import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { serveHttp } from '../../mcp/http.js';
import { silentLogger } from '../../mcp/log.js';
import { parseTokens } from '../../mcp/access.js';
import { tempBrain, type TempBrain } from '../helpers.js';
import { callRaw, connectClient, connectStdio, textOf } from './helpers.js';

let t: TempBrain;
beforeEach(async () => {
  t = await tempBrain();
});
afterEach(() => t.cleanup());

const AGENTS = ['alice', 'bob', 'carol'];
const PER_AGENT = 15;

/** Everyone sends to the next agent at once; then everyone reads at once. */
async function exchange(clients: Client[]) {
  const sends = clients.flatMap((client, i) =>
    Array.from({ length: PER_AGENT }, (_, n) =>
      callRaw(client, 'send_message', {
        to: AGENTS[(i + 1) % AGENTS.length],
        body: `${AGENTS[i]} #${n}`,
      }),
    ),
  );
  const sent = await Promise.all(sends);
  const failures = sent.filter((r) => r.isError).map(textOf);
  expect(failures).toEqual([]);
  const reads = await Promise.all(clients.map((c) => callRaw(c, 'read_inbox', { limit: 1000 })));
  for (const r of reads) expect(r.isError, textOf(r)).toBeFalsy();
  return reads.map((r) => (r.structuredContent as any).messages.length as number);
}

describe('many agents at once', () => {
  it('several brain mcp processes on one file lose nothing and never surface SQLITE_BUSY', async () => {
    const servers = await Promise.all(AGENTS.map((a) => connectStdio(t.path, a)));
    try {
      const read = await exchange(servers.map((s) => s.client));
      expect(read).toEqual([PER_AGENT, PER_AGENT, PER_AGENT]);
      expect(t.brain.transfer.export().messages).toHaveLength(AGENTS.length * PER_AGENT);
      for (const a of AGENTS) expect(t.brain.messages.poll(a).unread).toBe(0);
      for (const s of servers) expect(s.stderr()).not.toMatch(/SQLITE_BUSY|error/i);
    } finally {
      await Promise.all(servers.map((s) => s.close()));
    }
  });

  it('one brain serve with several clients loses nothing', async () => {
    const tokens = AGENTS.map((a) => `${a}-token-0123456789abcdef`);
    const server = await serveHttp(t.brain, {
      host: '127.0.0.1',
      port: 0,
      tokens: parseTokens(AGENTS.map((a, i) => `${tokens[i]} ${a}`).join('\n')),
      log: silentLogger,
    });
    const clients: Client[] = [];
    try {
      for (const token of tokens) {
        const client = await connectClient(
          new StreamableHTTPClientTransport(new URL(server.url), {
            requestInit: { headers: { Authorization: `Bearer ${token}` } },
          }),
        );
        clients.push(client);
      }
      expect(await exchange(clients)).toEqual([PER_AGENT, PER_AGENT, PER_AGENT]);
      expect(t.brain.transfer.export().messages).toHaveLength(AGENTS.length * PER_AGENT);
    } finally {
      for (const c of clients) await c.close();
      await server.close();
    }
  });
});
