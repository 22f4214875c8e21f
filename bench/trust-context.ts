/**
 * What reading a turn's context for trust costs (agent/permissions/trust.ts `trustContext`): a
 * long session's context of `--messages` messages, a tenth of them foreign, read as every turn
 * reads it. The first read looks at each block; later turns reuse what was read of the blocks
 * they share (a long-running process rebuilds the context from the same blocks).
 *
 * Usage: npx tsx bench/trust-context.ts [--messages N]
 */
import { parseArgs } from 'node:util';
import { Bench } from 'tinybench';
import type { ChatMessage } from '../agent/models/types.js';
import { createTrust, trustContext } from '../agent/permissions/trust.js';
import { untrusted } from '../agent/untrusted.js';

const { values } = parseArgs({ options: { messages: { type: 'string', default: '4000' } } });
const count = Number(values.messages);

function context(): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (let i = 0; i < count / 2; i++) {
    const asked = `question ${i} about https://example.com/${i} and the plan for it `.repeat(3);
    const text = i % 10 === 0 ? untrusted(`agent:a${i}`, asked) : asked;
    out.push({ role: 'user', content: [{ type: 'text', text }] });
    out.push({ role: 'assistant', content: [{ type: 'text', text: `answer ${i} `.repeat(20) }] });
  }
  return out;
}

const shared = context();
let fresh = context();
const bench = new Bench({ time: 1000 });
bench
  .add(
    `first read of ${count} messages`,
    () => {
      const trust = createTrust('owner');
      trustContext(trust, fresh);
    },
    // New blocks each time, made outside the timing: nothing of them has been read yet.
    { beforeEach: () => void (fresh = context()) },
  )
  .add(`a later turn's read of the same ${count}`, () => {
    const trust = createTrust('owner');
    trustContext(trust, shared);
  });
await bench.run();
for (const task of bench.tasks) {
  const r = task.result as { latency?: { p50?: number; p99?: number } } | undefined;
  console.log(
    `${task.name}: p50 ${(r?.latency?.p50 ?? NaN).toFixed(3)} ms, p99 ${(r?.latency?.p99 ?? NaN).toFixed(3)} ms`,
  );
}
