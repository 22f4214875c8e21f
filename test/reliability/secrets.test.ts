import {
  StdioClientTransport,
  getDefaultEnvironment,
} from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI, runCli, tempBrain, type TempBrain } from '../helpers.js';
import { connectClient, spawnServe } from '../mcp/helpers.js';

// What must never reach a log: message bodies (at info level or below: here, even at debug) and
// tokens (at any level). Every process runs at the chattiest level there is.
const BODY = 'CANARY-BODY-7f3a9c';
const TOKEN = 'CANARY-TOKEN-0123456789abcdef';
const WRONG = 'CANARY-WRONG-TOKEN-fedcba9876543210';
const LOUD = { BRAIN_LOG_LEVEL: 'debug', BRAIN_DEBUG: '1' };

let t: TempBrain;
beforeEach(async () => (t = await tempBrain()));
afterEach(() => t.cleanup());

const text = (r: unknown) =>
  ((r as { content: Array<{ text?: string }> }).content ?? []).map((c) => c.text ?? '').join('');

describe('logs keep bodies and tokens out', () => {
  it('the CLI prints neither bodies nor their fragments on stderr, even when commands fail', async () => {
    const env = { BRAIN_DB: t.path, BRAIN_AGENT: 'helios', ...LOUD };
    const bad = join(t.dir, 'bad.json');
    writeFileSync(bad, `{"messages": [{"body": "${BODY}" ]}`);
    const runs = await Promise.all([
      runCli(['send', '--to', 'nova', '--body', `${BODY} ok`], env),
      runCli(['send', '--body', `${BODY}\u202E`, '--priority', 'nope'], env),
      runCli(['send', '--body', `${BODY} ${'x'.repeat(2000)}`], {
        ...env,
        BRAIN_MAX_BODY_BYTES: '100',
      }),
      runCli(['send', '--body', '-'], env, `${BODY}\u0000`),
      runCli(['remember', `${BODY} memory`, '--importance', '7'], env),
      runCli(['import', bad], env),
      runCli(['migrate', '--synapse', bad], env),
    ]);
    expect(runs.map((r) => r.code)).toEqual([0, 2, 2, 2, 2, 2, 2]);
    for (const r of runs) expect(r.stderr).not.toContain('CANARY');
    expect(runs[0]!.stdout).not.toContain('CANARY'); // "sent syn_… in thread …", not the body
  });

  it('brain mcp at debug level logs no body, even of failing calls', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', '--agent', 'helios', '--db', t.path],
      env: { ...getDefaultEnvironment(), BRAIN_EMBEDDER: 'none', ...LOUD },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const client = await connectClient(transport);
    const ok = await client.callTool({
      name: 'send_message',
      arguments: { to: 'helios', body: BODY },
    });
    expect(ok.isError).toBeFalsy();
    const read = await client.callTool({ name: 'read_inbox', arguments: {} });
    expect(text(read)).toContain(BODY); // the answer carries it; the log must not
    const failed = await client.callTool({
      name: 'send_message',
      arguments: { to: 'nova', body: `${BODY}\u0000` },
    });
    expect(failed.isError).toBe(true);
    expect(text(failed)).toMatch(/body: must not contain NUL characters/);
    await client.callTool({ name: 'remember', arguments: { content: `${BODY}`, importance: 9 } });
    await client.close();
    expect(stderr).toMatch(/brain: info: mcp: serving agent helios on stdio/); // it does log
    expect(stderr).not.toContain('CANARY');
  });

  it('brain serve at debug level logs no token, right or wrong, and no body', async () => {
    const tokens = join(t.dir, 'tokens');
    writeFileSync(tokens, `${TOKEN} alice\n`);
    chmodSync(tokens, 0o600);
    const serve = await spawnServe(['--port', '0', '--tokens', tokens, '--db', t.path], LOUD);
    try {
      const post = (headers: Record<string, string>) =>
        fetch(serve.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...headers,
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: {
              protocolVersion: '2025-06-18',
              capabilities: {},
              clientInfo: { name: 'x', version: '1' },
            },
          }),
        });
      expect((await post({})).status).toBe(401);
      expect((await post({ authorization: `Bearer ${WRONG}` })).status).toBe(401);
      expect(
        (await post({ authorization: `Bearer ${TOKEN}`, origin: 'https://evil.example' })).status,
      ).toBe(403);

      const client = await connectClient(
        new StreamableHTTPClientTransport(new URL(serve.url), {
          requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
        }),
      );
      await client.callTool({ name: 'send_message', arguments: { to: 'bob', body: BODY } });
      await client.callTool({
        name: 'send_message',
        arguments: { to: 'bob', body: `${BODY}\uD800` },
      });
      await client.close();
    } finally {
      expect(await serve.stop()).toBe(0);
    }
    expect(serve.stderr()).toMatch(/session .* opened for alice/);
    expect(serve.stderr()).not.toContain('CANARY');
  });
});
