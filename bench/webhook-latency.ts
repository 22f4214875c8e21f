/**
 * How soon a webhook receiver hears of a message: one connection sends (as another agent's
 * process would), another runs the webhook worker with its real timer (as `brain serve` does),
 * and a loopback receiver verifies each signed POST. The delay runs from the send's return to the
 * receiver having the whole request.
 * Usage: npx tsx bench/webhook-latency.ts [--messages 50] [--gap-ms 137]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openBrain, verifySignature } from '../src/index.js';

const { values } = parseArgs({
  options: {
    messages: { type: 'string', default: '50' },
    'gap-ms': { type: 'string', default: '137' },
  },
});
const count = Number(values.messages);
const gapMs = Number(values['gap-ms']);
const secret = 'bench-secret-0123456789';

const dir = mkdtempSync(join(tmpdir(), 'brain-webhook-bench-'));
const dbPath = join(dir, 'brain.db');
const arrived = new Map<string, number>();
let bad = 0;
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    const check = verifySignature(
      secret,
      body,
      req.headers['brain-signature'] as string | undefined,
      Math.floor(Date.now() / 1000),
    );
    if (!check.ok) bad++;
    const { data } = JSON.parse(body) as { data: { message_id: string } };
    arrived.set(data.message_id, performance.now());
    res.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;

const sender = await openBrain({ dbPath });
const host = await openBrain({ dbPath });
const worker = host.webhooks.worker([
  {
    name: 'bench',
    url,
    secret,
    events: ['message'],
    agents: undefined,
    includeBodies: false,
    maxAttempts: 3,
  },
]);
await worker.tick(); // the marks start here
worker.start();

const sentAt = new Map<string, number>();
for (let i = 0; i < count; i++) {
  const m = sender.messages.send({ from: 'helios', to: 'nova', subject: 'bench', body: `m${i}` });
  sentAt.set(m.id, performance.now());
  await new Promise((r) => setTimeout(r, gapMs));
}
const deadline = performance.now() + 5000;
while (arrived.size < count && performance.now() < deadline)
  await new Promise((r) => setTimeout(r, 20));
await worker.stop();
sender.close();
host.close();
server.close();
rmSync(dir, { recursive: true, force: true });

const delays = [...sentAt]
  .map(([id, t]) => (arrived.get(id) ?? Infinity) - t)
  .sort((a, b) => a - b);
const at = (q: number) => delays[Math.min(delays.length - 1, Math.floor(q * delays.length))]!;
console.log(
  `webhook delay over ${count} messages (worker interval 100 ms): ` +
    `p50 ${at(0.5).toFixed(0)} ms, p95 ${at(0.95).toFixed(0)} ms, max ${delays.at(-1)!.toFixed(0)} ms; ` +
    `${delays.filter((d) => d === Infinity).length} not received, ${bad} bad signatures`,
);
