import { statSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runRepl } from '../../agent/chat.js';
import { createAssistant } from '../../agent/assistant.js';
import { MAINTAIN_INTERVAL_MS, systemClock } from '../../src/index.js';
import { IDLE_CHECKPOINT_BYTES } from '../../src/maintenance/idle.js';
import { serviceFixture } from './service/helpers.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const c of cleanups.splice(0)) await c();
});

describe("brain chat's idle upkeep", () => {
  it('empties a grown WAL while the user types, and stops when the conversation ends', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const f = await serviceFixture();
    cleanups.push(() => f.close());
    const { brain, path } = f.t;
    const wal = () => statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0;
    const fill = () => {
      for (let i = 0; wal() < IDLE_CHECKPOINT_BYTES; i++)
        brain.messages.send({ from: 'ann', to: 'assistant', body: `${i} ${'x'.repeat(100_000)}` });
    };
    const assistant = createAssistant({ brain, config: f.config, clock: systemClock, log: f.log });
    const input = new PassThrough();
    const ended = runRepl({
      assistant,
      brain,
      session: 'chat/default',
      streams: { input, output: new PassThrough(), note: () => {} },
    });

    fill();
    await vi.advanceTimersByTimeAsync(MAINTAIN_INTERVAL_MS);
    expect(wal()).toBe(0);

    input.end();
    await ended;
    fill();
    await vi.advanceTimersByTimeAsync(5 * MAINTAIN_INTERVAL_MS);
    expect(wal()).toBeGreaterThanOrEqual(IDLE_CHECKPOINT_BYTES);
  });
});
