import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createReflection } from '../../../agent/scheduler/reflection.js';
import type { Extractor } from '../../../src/index.js';
import type { FakeAnthropic } from '../../fakes/anthropic.js';
import { tempDir } from '../../helpers.js';
import { FAKE_TIMERS, fakeModel, startInstance, writeConfig, type Instance } from './harness.js';

const DAY = 86_400_000;

let fake: FakeAnthropic;
let dir: string;
let cleanup: () => void;
const instances: Instance[] = [];

beforeEach(async () => {
  ({ dir, cleanup } = tempDir('brain-reflection-'));
  fake = await fakeModel();
});
afterEach(async () => {
  for (const i of instances.splice(0)) await i.stop().catch(() => {});
  vi.useRealTimers();
  await fake.close();
  cleanup();
});

async function instance(reflection: Record<string, unknown> = {}) {
  const config = writeConfig(dir, fake, { reflection });
  const i = await startInstance({ dir, config });
  instances.push(i);
  return i;
}

/** Each message as a commitment of its sender, as an extractor would read "I will …". */
const commitments: Extractor = {
  name: 'commitments',
  version: 1,
  async extract(turn) {
    return [{ content: turn.body, category: 'commitment', importance: 2.5, sources: [turn.id] }];
  },
};

describe('reflection in brain agent', () => {
  it('tells the owner, once, of a commitment nobody followed up, on its daily timer', async () => {
    vi.useFakeTimers({ ...FAKE_TIMERS, now: new Date('2026-05-04T08:00:00Z') });
    const i = await instance({ deliverTo: 'discord:99' });
    i.brain.messages.send({ from: 'bob', to: 'ann', body: 'I will send the contract by Friday' });
    await i.brain.knowledge.extract(commitments);
    const reflection = createReflection();
    await i.start(reflection);
    expect(await reflection.tick()).toMatchObject({ status: 'quiet' });

    vi.setSystemTime(new Date('2026-05-08T08:00:00Z'));
    await vi.advanceTimersByTimeAsync(DAY);
    expect(i.deliveries).toEqual([
      {
        text: 'Not followed up since it was said:\n- I will send the contract by Friday (bob, 2026-05-04)',
        target: { channel: 'discord', chatId: '99' },
      },
    ]);
    // Told once: the next day's reflection has nothing to say.
    await vi.advanceTimersByTimeAsync(DAY);
    expect(i.deliveries).toHaveLength(1);
    // It acted on nothing: no turn was asked of the model, the knowledge is as it was.
    expect(fake.requests).toEqual([]);
    expect(i.brain.knowledge.insights()).toHaveLength(1);
  });

  it('does not run when disabled, and skips while the owner has a turn running', async () => {
    vi.useFakeTimers({ ...FAKE_TIMERS, now: new Date('2026-05-04T08:00:00Z') });
    const off = await instance({ enabled: false });
    off.brain.messages.send({ from: 'bob', to: 'ann', body: 'I will call the bank' });
    await off.brain.knowledge.extract(commitments);
    const reflection = createReflection();
    await off.start(reflection);
    vi.setSystemTime(new Date('2026-05-10T08:00:00Z'));
    await vi.advanceTimersByTimeAsync(3 * DAY);
    expect(off.deliveries).toEqual([]);
    expect(off.brain.knowledge.knowledgeChanges()).toEqual([]);

    const busy = { ...off.host, busy: () => true };
    const skipping = createReflection();
    await skipping.start(busy);
    expect(await skipping.tick()).toEqual({
      status: 'skipped',
      reason: 'the owner has a turn running',
    });
    await skipping.stop();
  });
});
