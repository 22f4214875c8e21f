import { costOf, priceOf } from '../../src/index.js';
import type { SubTurnRequest } from '../tools/types.js';
import type { DelegationConfig } from './config.js';

/**
 * A task's spending, counted after each of its model calls: every token the calls report (input,
 * output, cache), and dollars where the model's price is known. Past either limit the task stops
 * with the limit named.
 */
export function taskBudget(
  limits: Pick<DelegationConfig, 'maxTokens' | 'maxCostUsd'>,
): SubTurnRequest['budget'] {
  let tokens = 0;
  let dollars = 0;
  return ({ model, endpoint, usage }) => {
    tokens += usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
    const price = priceOf(model, endpoint);
    if (price)
      dollars += costOf(
        {
          calls: 1,
          input_tokens: usage.input,
          output_tokens: usage.output,
          cache_read_tokens: usage.cacheRead,
          cache_write_tokens: usage.cacheWrite,
        },
        price,
      );
    if (tokens > limits.maxTokens)
      return `the task used ${tokens} tokens, past its budget of ${limits.maxTokens} (delegation.maxTokens)`;
    if (dollars > limits.maxCostUsd)
      return `the task cost about $${dollars.toFixed(2)}, past its budget of $${limits.maxCostUsd} (delegation.maxCostUsd)`;
    return undefined;
  };
}
