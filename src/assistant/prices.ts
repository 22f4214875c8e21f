import type { TokenSums } from './usage.js';

/** US dollars per million tokens. Cache writes at the 5-minute rate (what the loop asks for). */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/**
 * Anthropic's published list prices when this was written (update when they change), by model
 * name prefix: a dated name
 * (`claude-sonnet-4-5-20250929`) takes its family's price, and the longest prefix wins
 * (`claude-opus-4-5` before `claude-opus-4`). Long-context (over 200K input tokens) and batch
 * prices are not modelled: the figure is an estimate.
 */
export const ANTHROPIC_PRICES: Record<string, ModelPrice> = {
  'claude-opus-4-5': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  'claude-opus-4-1': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  'claude-opus-4': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  'claude-sonnet-4-5': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-sonnet-4': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-3-7-sonnet': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-3-5-sonnet': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-haiku-4-5': { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
  'claude-3-5-haiku': { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 },
  'claude-3-opus': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  'claude-3-haiku': { input: 0.25, output: 1.25, cacheRead: 0.03, cacheWrite: 0.3 },
};

const FREE: ModelPrice = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

/**
 * The price of a model as served by an endpoint: nothing for a local Ollama endpoint (its id
 * starts with `ollama:`), the table's for a known Claude model, undefined when unknown.
 */
export function priceOf(model: string, endpoint: string): ModelPrice | undefined {
  if (endpoint.startsWith('ollama:')) return FREE;
  let best: string | undefined;
  for (const prefix of Object.keys(ANTHROPIC_PRICES)) {
    const fits = model === prefix || model.startsWith(`${prefix}-`);
    if (fits && (best === undefined || prefix.length > best.length)) best = prefix;
  }
  return best === undefined ? undefined : ANTHROPIC_PRICES[best];
}

/** The estimated cost in dollars of some tokens at a price. */
export function costOf(tokens: TokenSums, price: ModelPrice): number {
  return (
    (tokens.input_tokens * price.input +
      tokens.output_tokens * price.output +
      tokens.cache_read_tokens * price.cacheRead +
      tokens.cache_write_tokens * price.cacheWrite) /
    1_000_000
  );
}

/**
 * The estimated cost of a group of calls split by model and endpoint: null when any part is of a
 * model without a known price (a partial sum would pass for the whole).
 */
export function estimateCost(
  models: Array<TokenSums & { model: string; endpoint: string }>,
): number | null {
  let total = 0;
  for (const m of models) {
    const price = priceOf(m.model, m.endpoint);
    if (!price) return null;
    total += costOf(m, price);
  }
  return total;
}
