import type { Extractor } from './types.js';

/**
 * The extractor the brain reads its messages with: the offline one, which needs no model. Its
 * code (patterns of English) is loaded when asked for, not with the library's face.
 */
export async function createExtractor(): Promise<Extractor> {
  return (await import('./offline.js')).createOfflineExtractor();
}
