import { statSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildComponents } from '../../../agent/service/components.js';
import { createIdleMaintenance } from '../../../agent/service/maintenance.js';
import { IDLE_CHECKPOINT_BYTES } from '../../../src/maintenance/idle.js';
import { systemClock } from '../../../src/index.js';
import { serviceFixture } from './helpers.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const c of cleanups.splice(0)) await c();
});

describe("brain agent's idle upkeep", () => {
  it('is one of the components every service runs', async () => {
    const f = await serviceFixture();
    cleanups.push(() => f.close());
    const names = (
      await buildComponents(f.config, { brain: f.t.brain, clock: systemClock, log: f.log })
    ).map((c) => c.name);
    expect(names).toContain('maintenance');
  });

  it('empties a grown WAL between turns while started, and not once stopped', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const f = await serviceFixture();
    cleanups.push(() => f.close());
    const wal = () => statSync(`${f.t.path}-wal`, { throwIfNoEntry: false })?.size ?? 0;
    const fill = () => {
      for (let i = 0; wal() < IDLE_CHECKPOINT_BYTES; i++)
        f.t.brain.messages.send({
          from: 'ann',
          to: 'assistant',
          body: `${i} ${'x'.repeat(100_000)}`,
        });
    };
    const upkeep = createIdleMaintenance({ intervalMs: 1_000 });
    await upkeep.start(f.host);
    fill();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(wal()).toBe(0);

    await upkeep.stop();
    fill();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(wal()).toBeGreaterThanOrEqual(IDLE_CHECKPOINT_BYTES);
  });
});
