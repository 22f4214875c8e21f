/**
 * From a Telegram update arriving to the model request leaving: the fake Bot API
 * (test/fakes/telegram.ts) wakes grammY's waiting getUpdates with one private
 * message from the owner; the real channel, the service host's lane and the assistant's loop
 * (lease, user message, system prompt with its memory search, context) run; the clock stops when
 * the fake Anthropic server (zero latency) receives the model request. Each update waits for the
 * previous reply to be sent. Both fakes run in this process, so their HTTP handling is counted.
 *
 * Usage: nice npx tsx bench/telegram-turn.ts [--updates N] [--warmup N]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { createTelegramChannel } from '../agent/channels/telegram/bot.js';
import { loadAssistantConfig } from '../agent/config.js';
import type { Log } from '../agent/log.js';
import { createServiceHost } from '../agent/service/host.js';
import { openBrain, systemClock } from '../src/index.js';
import { startFakeAnthropic } from '../test/fakes/anthropic.js';
import { BOT_USER, startFakeTelegram } from '../test/fakes/telegram.js';

const { values } = parseArgs({
  options: {
    updates: { type: 'string', default: '200' },
    warmup: { type: 'string', default: '20' },
  },
});
const updates = Number(values.updates);
const warmup = Number(values.warmup);
const OWNER = 111;

const scratch = mkdtempSync(join(tmpdir(), 'brain-tg-bench-'));
const brain = await openBrain({ dbPath: join(scratch, 'brain.db') });
const tg = await startFakeTelegram();
const model = await startFakeAnthropic();
const workspace = join(scratch, 'ws');
mkdirSync(workspace);
const file = join(scratch, 'assistant.json');
writeFileSync(
  file,
  JSON.stringify({
    agent: 'assistant',
    owner: { name: 'bench-owner', telegram: OWNER },
    workspace,
    models: {
      endpoints: [{ provider: 'anthropic', model: 'claude-fake', baseUrl: model.baseUrl }],
    },
    telegram: { allowedChatIds: [OWNER], apiRoot: tg.apiRoot },
  }),
);
const config = loadAssistantConfig({
  file,
  env: { ANTHROPIC_API_KEY: 'sk-bench', TELEGRAM_BOT_TOKEN: tg.token, HOME: scratch },
});
// The channel's share: until it has queued the turn (its `telegram.turn_queued` log event).
let queued = 0;
const log: Log = (_level, event) => {
  if (event === 'telegram.turn_queued') queued = performance.now();
};
const host = createServiceHost({ brain, config, clock: systemClock, log });
const channel = createTelegramChannel(config.telegram!, { botInfo: BOT_USER });
host.setComponents([channel]);
await channel.start(host);

let received = 0;
model.fallback = () => {
  received = performance.now();
  return { text: 'Noted.' };
};

const samples: number[] = [];
const channelShare: number[] = [];
for (let i = 0; i < warmup + updates; i++) {
  const sent = tg.callsOf('sendMessage').length;
  const start = performance.now();
  tg.message(OWNER, `note number ${i}: the plan for the week`);
  await tg.waitFor('sendMessage', sent + 1);
  if (i >= warmup) {
    samples.push(received - start);
    channelShare.push(queued - start);
  }
}

await channel.stop();
await host.close();
await tg.close();
await model.close();
brain.close();
rmSync(scratch, { recursive: true, force: true });

function report(name: string, xs: number[]) {
  const sorted = [...xs].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  console.log(
    `${name}: p50 ${at(0.5).toFixed(2)} ms, p90 ${at(0.9).toFixed(2)} ms, ` +
      `p99 ${at(0.99).toFixed(2)} ms, max ${sorted.at(-1)!.toFixed(2)} ms over ${xs.length} updates`,
  );
}
report('update → model request', samples);
report('  of which update → turn queued (getUpdates answer, grammY, the channel)', channelShare);
console.log(`(after ${warmup} warm-up updates)`);
