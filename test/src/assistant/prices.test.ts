import { describe, expect, it } from 'vitest';
import { costOf, estimateCost, priceOf } from '../../../src/assistant/prices.js';

const tokens = (input: number, output: number, cacheRead = 0, cacheWrite = 0) => ({
  calls: 1,
  input_tokens: input,
  output_tokens: output,
  cache_read_tokens: cacheRead,
  cache_write_tokens: cacheWrite,
});

describe('prices', () => {
  it('prices a dated model name as its family, the longest prefix winning', () => {
    expect(priceOf('claude-sonnet-4-5-20250929', 'anthropic:x@0')?.input).toBe(3);
    expect(priceOf('claude-opus-4-5', 'anthropic:x@0')?.input).toBe(5);
    expect(priceOf('claude-opus-4-20250514', 'anthropic:x@0')?.input).toBe(15);
    expect(priceOf('claude-opus-40', 'anthropic:x@0')).toBeUndefined();
  });

  it('counts a local Ollama model as free and an unknown model as unknown', () => {
    expect(priceOf('llama3.1', 'ollama:llama3.1@1')).toEqual({
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
    });
    expect(priceOf('gpt-9', 'anthropic:gpt-9@0')).toBeUndefined();
  });

  it('adds the four kinds of tokens at their own rates', () => {
    const price = priceOf('claude-sonnet-4-5', 'anthropic:a@0')!;
    // 1M input $3 + 1M output $15 + 1M cache read $0.30 + 1M cache write $3.75
    expect(costOf(tokens(1e6, 1e6, 1e6, 1e6), price)).toBeCloseTo(22.05, 10);
  });

  it('gives no total when one part has no known price', () => {
    const known = { ...tokens(1e6, 0), model: 'claude-haiku-4-5', endpoint: 'anthropic:h@0' };
    const free = { ...tokens(5e6, 5e6), model: 'llama3.1', endpoint: 'ollama:l@1' };
    expect(estimateCost([known, free])).toBeCloseTo(1, 10);
    expect(estimateCost([known, { ...known, model: 'mystery' }])).toBeNull();
  });
});
