import type { SearchType } from '../validation.js';

/**
 * What gets a vector, and the table of each kind (`embed_queue.item_type`, `embed_cursor`):
 * the embedding queue and the doctor's vectors check both walk these.
 */
export const EMBEDDED_KINDS = [
  ['message', 'messages'],
  ['stm', 'stm'],
  ['atom', 'atoms'],
] as const satisfies ReadonlyArray<readonly [SearchType, string]>;
