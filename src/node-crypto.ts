import type * as Crypto from 'node:crypto';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
let loaded: typeof Crypto | undefined;

/**
 * node:crypto, loaded when first used. Loading it costs a one-shot command a few milliseconds
 * of its start-up, and most (poll, read, search) never make an id or a hash.
 */
export function nodeCrypto(): typeof Crypto {
  return (loaded ??= require('node:crypto') as typeof Crypto);
}
