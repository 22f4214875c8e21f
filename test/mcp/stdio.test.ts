import { spawn } from 'node:child_process';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI, runCli, tempBrain, type TempBrain } from '../helpers.js';
import { call, connectStdio } from './helpers.js';

let t: TempBrain;
beforeEach(async () => {
  t = await tempBrain();
});
afterEach(() => t.cleanup());

describe('brain mcp (stdio, the built bin)', () => {
  it('serves the real SDK client as its --agent', async () => {
    const alice = await connectStdio(t.path, 'alice');
    try {
      const { tools } = await alice.client.listTools();
      expect(tools).toHaveLength(13);
      const sent = await call(alice.client, 'send_message', { to: 'bob', body: 'over stdio' });
      expect(t.brain.messages.getMessage(sent.id)).toMatchObject({
        from: 'alice',
        body: 'over stdio',
      });
      expect(t.brain.messages.poll('bob').unread).toBe(1);
    } finally {
      await alice.close();
    }
  });

  it('answers search with memories to a client that listed the tools and checks output schemas', async () => {
    // The reproduction of issue 12: Claude Code lists the tools at start, so the SDK client
    // validates every structuredContent against the declared output schema.
    const memory = t.brain.knowledge.remember({
      agent: 'nova',
      content: 'The spread gate does not predict fills',
    });
    const alice = await connectStdio(t.path, 'alice');
    try {
      const result = await alice.client.callTool({
        name: 'search',
        arguments: { query: 'spread gate' },
      });
      expect(result.isError).toBeFalsy();
      const found = result.structuredContent as any;
      expect(found.hits.map((h: any) => h.id)).toEqual([memory.id]);
      expect(found.retrievers).toEqual(['fts']);
    } finally {
      await alice.close();
    }
  });

  it('answers a question naming a time and people with their lists, after listing the tools', async () => {
    // A crowd saying the same words, and ana's conversation with bo among them.
    for (let i = 0; i < 12; i++) {
      t.brain.messages.send({ from: `c${i % 4}`, to: 'dan', body: `the escrow fees again ${i}` });
    }
    const theirs = t.brain.messages.send({ from: 'ana', to: 'bo', body: 'escrow fees are due' });
    const alice = await connectStdio(t.path, 'alice');
    try {
      await alice.client.listTools();
      const result = await alice.client.callTool({
        name: 'search',
        arguments: { query: 'what did ana say about the escrow fees today' },
      });
      expect(result.isError).toBeFalsy();
      const found = result.structuredContent as any;
      expect(found.retrievers).toEqual(['fts', 'time', 'people']);
      expect(found.hits[0].id).toBe(theirs.id);
      expect(Object.keys(found.hits[0].found_by).sort()).toEqual(['fts', 'people', 'time']);
      expect(found.time.text).toBe('today');
      const text = (result.content as Array<{ text: string }>).map((c) => c.text).join('\n');
      expect(text).toMatch(/\(searched by words, the time asked and the people named\)/);
    } finally {
      await alice.close();
    }
  });

  it('writes only JSON-RPC on stdout and exits when stdin closes', async () => {
    const child = spawn(process.execPath, [CLI, 'mcp', '--agent', 'alice', '--db', t.path], {
      env: { ...process.env, BRAIN_EMBEDDER: 'none', BRAIN_LOG_LEVEL: 'debug' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let answered: () => void = () => {};
    const lastAnswer = new Promise<void>((resolve) => (answered = resolve));
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (stdout.includes('"id":3')) answered();
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const requests = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 't', version: '1' },
        },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'send_message', arguments: { to: 'bob' } },
      },
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'poll_inbox', arguments: {} },
      },
    ];
    for (const r of requests) child.stdin.write(`${JSON.stringify(r)}\n`);
    await lastAnswer;
    child.stdin.end();
    expect(await exited).toBe(0);

    const lines = stdout.trim().split('\n');
    const answers = lines.map((l) => JSON.parse(l));
    for (const a of answers) expect(a.jsonrpc).toBe('2.0');
    expect(answers.map((a) => a.id)).toEqual([1, 2, 3]);
    expect(answers[1].result.isError).toBe(true);
    expect(answers[1].result.content[0].text).toMatch(/body/);
    expect(answers[2].result.structuredContent).toEqual({ agent: 'alice', unread: 0 });
    expect(stderr).toContain('serving agent alice'); // logs went to stderr
  });

  it('refuses to start without an agent: exit 2, a message on stderr, nothing on stdout', async () => {
    const r = await runCli(['mcp', '--db', t.path], { BRAIN_AGENT: '' });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/agent: is required/);
  });

  it('notifies a subscriber in one process of a message sent through another', async () => {
    const bob = await connectStdio(t.path, 'bob');
    const alice = await connectStdio(t.path, 'alice');
    try {
      const updated = new Promise<string>((resolve) =>
        bob.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) =>
          resolve(n.params.uri),
        ),
      );
      await bob.client.subscribeResource({ uri: 'brain://inbox/bob' });
      const sent = await call(alice.client, 'send_message', { to: 'bob', body: 'ping' });
      expect(await updated).toBe('brain://inbox/bob');
      const inbox = await call(bob.client, 'read_inbox');
      expect(inbox.messages.map((m: any) => m.id)).toEqual([sent.id]);
    } finally {
      await alice.close();
      await bob.close();
    }
  });
});
