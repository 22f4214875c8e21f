import { connectionOf } from '../../src/brain.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fingerprint } from './fingerprint.js';
import { connectInMemory, textOf, type Connected } from '../mcp/helpers.js';
import { tempBrain, type TempBrain } from '../helpers.js';

let t: TempBrain;
let mcp: Connected;
let seeded: { message: string; thread: string; stm: string };
beforeAll(async () => {
  t = await tempBrain({ maxBodyBytes: 64 * 1024 });
  const m = t.brain.messages.send({
    from: 'nova',
    to: 'helios',
    subject: 'sighting',
    body: 'falcon at dawn',
  });
  const stm = t.brain.knowledge.remember({
    agent: 'nova',
    content: 'kestrel',
    source_message_id: m.id,
  });
  seeded = { message: m.id, thread: m.thread_id, stm: stm.id };
  mcp = await connectInMemory(t.brain, { agent: 'helios' });
  // The first call registers the caller (agents register on first use); the cases come after.
  await mcp.client.callTool({ name: 'poll_inbox', arguments: {} });
});
afterAll(async () => {
  await mcp.close();
  t.cleanup();
});

const BAD_IDS = [
  '',
  'syn_',
  "syn_'; DROP TABLE acks; --",
  '../../etc/passwd',
  'thr_x',
  'SYN_0123456789AB',
  'syn_0123456789ab\u0000',
];
const BAD_TEXT: Array<[string, string, RegExp]> = [
  ['a NUL byte', 'a\u0000b', /must not contain NUL characters/],
  ['a lone surrogate', 'a\uD800b', /must be valid Unicode/],
];

interface ToolCase {
  name: string;
  tool: string;
  args: () => Record<string, unknown>;
  /** The tool's error text (isError), naming the field. */
  error: RegExp;
}

const REFUSED: ToolCase[] = [
  ...BAD_IDS.flatMap((id): ToolCase[] => [
    {
      name: `ack_message ${JSON.stringify(id)}`,
      tool: 'ack_message',
      args: () => ({ message_id: id }),
      error: /^INVALID_INPUT: message_id: /,
    },
    {
      name: `get_thread ${JSON.stringify(id)}`,
      tool: 'get_thread',
      args: () => ({ thread_id: id }),
      error: /^INVALID_INPUT: thread_id: /,
    },
    {
      name: `send_message reply_to ${JSON.stringify(id)}`,
      tool: 'send_message',
      args: () => ({ body: 'x', reply_to: id }),
      error: /^INVALID_INPUT: reply_to: /,
    },
    {
      name: `send_message thread ${JSON.stringify(id)}`,
      tool: 'send_message',
      args: () => ({ body: 'x', thread: id }),
      error: /^INVALID_INPUT: thread: /,
    },
    {
      name: `remember source ${JSON.stringify(id)}`,
      tool: 'remember',
      args: () => ({ content: 'x', source_message_id: id }),
      error: /^INVALID_INPUT: source_message_id: /,
    },
    {
      name: `find_provenance ${JSON.stringify(id)}`,
      tool: 'find_provenance',
      args: () => ({ id }),
      error: /^INVALID_INPUT: id: /,
    },
    {
      name: `link_atoms from ${JSON.stringify(id)}`,
      tool: 'link_atoms',
      args: () => ({ from: id, to: 'atm_000000000000' }),
      error: /^INVALID_INPUT: from: /,
    },
  ]),
  ...BAD_TEXT.flatMap(([what, value, error]): ToolCase[] => [
    {
      name: `send_message body with ${what}`,
      tool: 'send_message',
      args: () => ({ to: 'nova', body: value }),
      error: new RegExp(`^INVALID_INPUT: body: ${error.source}`),
    },
    {
      name: `send_message subject with ${what}`,
      tool: 'send_message',
      args: () => ({ body: 'x', subject: value }),
      error: new RegExp(`^INVALID_INPUT: subject: ${error.source}`),
    },
    {
      name: `remember content with ${what}`,
      tool: 'remember',
      args: () => ({ content: value }),
      error: new RegExp(`^INVALID_INPUT: content: ${error.source}`),
    },
    {
      name: `create_atom outcome with ${what}`,
      tool: 'create_atom',
      args: () => ({ subject: 's', action: 'a', outcome: value }),
      error: new RegExp(`^INVALID_INPUT: outcome: ${error.source}`),
    },
    {
      name: `ack_message body with ${what}`,
      tool: 'ack_message',
      args: () => ({ message_id: seeded.message, body: value }),
      error: new RegExp(`^INVALID_INPUT: body: ${error.source}`),
    },
    {
      name: `search query with ${what}`,
      tool: 'search',
      args: () => ({ query: value }),
      error: new RegExp(`^INVALID_INPUT: query: ${error.source}`),
    },
  ]),
  {
    name: 'a body over the limit',
    tool: 'send_message',
    args: () => ({ to: 'nova', body: 'x'.repeat(64 * 1024 + 1) }),
    error: /^INVALID_INPUT: body: is 65537 bytes; the limit is 65536/,
  },
  {
    name: 'a 10 MB body',
    tool: 'send_message',
    args: () => ({ to: 'nova', body: 'x'.repeat(10 * 1024 * 1024) }),
    error: /^INVALID_INPUT: body: is 10485760 bytes/,
  },
  {
    name: 'an SQL recipient',
    tool: 'send_message',
    args: () => ({ to: "nova'; --", body: 'x' }),
    error: /^INVALID_INPUT: to: must be letters/,
  },
  {
    name: 'an empty query',
    tool: 'search',
    args: () => ({ query: '  ' }),
    error: /^INVALID_INPUT: query: must not be empty/,
  },
  {
    name: 'a word for a date',
    tool: 'search',
    args: () => ({ query: 'falcon', since: 'yesterday' }),
    error: /^INVALID_INPUT: since: /,
  },
  {
    name: 'an expiry in the past',
    tool: 'remember',
    args: () => ({ content: 'x', expires_at: '2000-01-01' }),
    error: /^INVALID_INPUT: expires_at: must be in the future/,
  },
  {
    name: 'an unknown message',
    tool: 'ack_message',
    args: () => ({ message_id: 'syn_000000000000' }),
    error: /^NOT_FOUND: message_id: no message/,
  },
];

describe('hostile input over MCP', () => {
  describe('refused tool calls: isError naming the field, nothing changed', () => {
    for (const c of REFUSED) {
      it(c.name, async () => {
        const before = fingerprint(connectionOf(t.brain));
        const result = (await mcp.client.callTool({
          name: c.tool,
          arguments: c.args(),
        })) as CallToolResult;
        expect(result.isError).toBe(true);
        expect(textOf(result)).toMatch(c.error);
        expect(textOf(result).length).toBeLessThan(600);
        expect(fingerprint(connectionOf(t.brain))).toBe(before);
      });
    }
  });

  describe('FTS syntax through the search tool is only words', () => {
    for (const query of [
      '"',
      'NEAR(falcon',
      '-falcon',
      '*',
      '^falcon',
      'subject:falcon',
      "falcon') OR 1=1 --",
    ]) {
      it(`search ${JSON.stringify(query)}`, async () => {
        const result = (await mcp.client.callTool({
          name: 'search',
          arguments: { query },
        })) as CallToolResult;
        expect(result.isError).toBeFalsy();
        const hits = (result.structuredContent as { hits: Array<{ id: string }> }).hits;
        if (/falcon/.test(query)) expect(hits.map((h) => h.id)).toContain(seeded.message);
        else expect(hits).toEqual([]);
      });
    }
  });

  describe('resource URIs that climb or are malformed get a clear error', () => {
    for (const [uri, error] of [
      ['brain://thread/..%2F..%2Fetc%2Fpasswd', /INVALID_INPUT: thread_id: must be a thread id/],
      ['brain://thread/%E0%A4%A', /INVALID_INPUT: uri: has a malformed %-escape/],
      ['brain://knowledge/..%2F..%2Fetc', /INVALID_INPUT: id: must be an STM or atom id/],
      ['brain://knowledge/syn_0123456789ab', /INVALID_INPUT: id: must be an STM or atom id/],
      [
        'brain://inbox/nova',
        /INVALID_INPUT: agent: you are helios; only your own inbox is readable/,
      ],
      ['brain://inbox/..%2Fnova', /INVALID_INPUT: agent: you are helios/],
    ] as const) {
      it(uri, async () => {
        await expect(mcp.client.readResource({ uri })).rejects.toThrow(error);
      });
    }

    it('the own inbox and a real thread still read', async () => {
      const inbox = await mcp.client.readResource({ uri: 'brain://inbox/helios' });
      expect(JSON.parse((inbox.contents[0] as { text: string }).text).unread).toBe(1);
      const thread = await mcp.client.readResource({ uri: `brain://thread/${seeded.thread}` });
      expect((thread.contents[0] as { text: string }).text).toContain('falcon at dawn');
      const knowledge = await mcp.client.readResource({ uri: `brain://knowledge/${seeded.stm}` });
      expect((knowledge.contents[0] as { text: string }).text).toContain(seeded.message);
    });
  });
});
