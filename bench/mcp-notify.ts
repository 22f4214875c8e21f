/**
 * Push latency across processes: bob's `brain mcp` is subscribed to brain://inbox/bob; alice's
 * `brain mcp` (another process) sends him a message. Measures from alice calling send_message (so it includes that round trip) to
 * bob's notifications/resources/updated. Usage: npm run build && npx tsx bench/mcp-notify.ts [n]
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StdioClientTransport,
  getDefaultEnvironment,
} from '@modelcontextprotocol/sdk/client/stdio.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const CLI = resolve(import.meta.dirname, '..', 'dist', 'bin', 'main.js');

async function connect(db: string, agent: string): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', '--agent', agent, '--db', db],
      env: { ...getDefaultEnvironment(), BRAIN_EMBEDDER: 'none' },
    }),
  );
  await client.listTools(); // as real clients do: the SDK then checks each tool's output schema
  return client;
}

const n = Number(process.argv[2] ?? 30);
const dir = mkdtempSync(join(tmpdir(), 'brain-bench-'));
const db = join(dir, 'brain.db');
const bob = await connect(db, 'bob');
const alice = await connect(db, 'alice');
try {
  let notified: () => void = () => {};
  bob.setNotificationHandler(ResourceUpdatedNotificationSchema, () => notified());
  await bob.subscribeResource({ uri: 'brain://inbox/bob' });
  const latencies: number[] = [];
  for (let i = 0; i < n; i++) {
    const arrived = new Promise<number>((done) => (notified = () => done(performance.now())));
    const sentAt = performance.now();
    await alice.callTool({ name: 'send_message', arguments: { to: 'bob', body: `ping ${i}` } });
    latencies.push((await arrived) - sentAt);
    await bob.callTool({ name: 'read_inbox', arguments: {} });
  }
  const s = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!.toFixed(0);
  console.log(`inbox push across processes (${n} messages, watcher interval 50 ms)`);
  console.log(
    `  send_message called → notification: median ${at(0.5)} ms, p90 ${at(0.9)} ms, max ${s[s.length - 1]!.toFixed(0)} ms`,
  );
} finally {
  await alice.close();
  await bob.close();
  rmSync(dir, { recursive: true, force: true });
}
