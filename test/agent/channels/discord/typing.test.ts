import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { keepTyping } from '../../../../agent/channels/discord/typing.js';

describe('keepTyping', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('shows typing at once, renews it every 8 s, and stops when told', async () => {
    let sent = 0;
    const stop = keepTyping(
      async () => void sent++,
      () => {},
    );
    expect(sent).toBe(1);
    await vi.advanceTimersByTimeAsync(7_999);
    expect(sent).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(sent).toBe(2);
    await vi.advanceTimersByTimeAsync(16_000);
    expect(sent).toBe(4);
    stop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(sent).toBe(4);
  });

  it('a failed typing call is reported and the renewals go on', async () => {
    const errors: unknown[] = [];
    let sent = 0;
    const stop = keepTyping(
      async () => {
        sent++;
        throw new Error('429');
      },
      (err) => errors.push(err),
    );
    await vi.advanceTimersByTimeAsync(8_000);
    stop();
    expect(sent).toBe(2);
    expect(errors).toHaveLength(2);
  });
});
