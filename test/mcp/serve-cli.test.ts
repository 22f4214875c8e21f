import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../cli-in-process.js';
import { runCli, tempBrain, type TempBrain } from '../helpers.js';
import { call, connectClient, spawnServe } from './helpers.js';

const TOKEN = 'serve-cli-token-0123456789abcdef';
let t: TempBrain;
let tokens: string;
beforeEach(async () => {
  t = await tempBrain();
  tokens = join(t.dir, 'tokens');
  writeFileSync(tokens, `${TOKEN} alice\n`);
  chmodSync(tokens, 0o600);
});
afterEach(() => t.cleanup());

describe('brain serve (the built bin)', () => {
  it('prints its URL, serves token holders, and stops cleanly on SIGTERM', async () => {
    const serve = await spawnServe(['--port', '0', '--tokens', tokens, '--db', t.path]);
    expect(serve.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(serve.stderr()).toContain('agents by token: alice');
    expect(serve.stderr()).not.toContain(TOKEN);
    const client = await connectClient(
      new StreamableHTTPClientTransport(new URL(serve.url), {
        requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
      }),
    );
    const sent = await call(client, 'send_message', { to: 'bob', body: 'via serve' });
    expect(t.brain.messages.getMessage(sent.id)!.from).toBe('alice');
    await client.close();
    expect(await serve.stop()).toBe(0);
  });

  it('refuses to serve beyond loopback without tokens (exit 2)', async () => {
    const r = await runCli(['serve', '--host', '0.0.0.0', '--port', '0', '--db', t.path], {
      BRAIN_AGENT: 'solo',
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--tokens: is required to serve beyond loopback/);
  });

  it('rejects a bad tokens file or port, naming what is wrong (exit 2)', async () => {
    writeFileSync(tokens, 'tooshort alice\n');
    const bad = await runCliInProcess(['serve', '--port', '0', '--tokens', tokens, '--db', t.path]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/line 1: the token is too short/);
    const port = await runCliInProcess(['serve', '--port', 'http', '--db', t.path], {
      BRAIN_AGENT: 'x',
    });
    expect(port.code).toBe(2);
    expect(port.stderr).toMatch(/--port/);
  });
});
