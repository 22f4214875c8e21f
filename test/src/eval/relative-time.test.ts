import { describe, expect, it } from 'vitest';
import { runRelativeTimeEval } from '../../../src/eval/relative-time.js';

describe('the relative-time questions', () => {
  it('find each named day first and rank its time before any other, in Paris across the daylight-saving change', async () => {
    // Monday 2026-11-02: three weeks back crosses Sunday 2026-10-25.
    const r = await runRelativeTimeEval({ now: '2026-11-02T15:00:00Z', timeZone: 'Europe/Paris' });
    expect(r.failures).toEqual([]);
    expect(r).toMatchObject({ questions: 8, first: 8, outOfOrder: 0 });
  });
});
