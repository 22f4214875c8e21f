import type { Embedder } from './embedder.js';
import { createHashEmbedder } from './offline-hash.js';
import { createSentenceEncoder, sentenceEncoderAvailable } from './offline-use.js';

export { isOfflineModel } from './embedder.js';

/**
 * The offline embedder: needs no network and downloads nothing. The sentence encoder when its
 * optional packages are installed (the better one, measured on the dev set), else hashed words.
 */
export function createOfflineEmbedder(
  options: { notice?: (line: string) => void } = {},
): Promise<Embedder> {
  if (sentenceEncoderAvailable()) return Promise.resolve(createSentenceEncoder());
  options.notice?.(
    'the offline sentence encoder (@energetic-ai/*, optional dependencies) is not installed; using hashed words',
  );
  return Promise.resolve(createHashEmbedder());
}
