import type { Embedder } from './embedder.js';
import { createHashEmbedder } from './offline-hash.js';

/** Models made in this process without network carry this prefix; Ollama's never do. */
export function isOfflineModel(model: string): boolean {
  return model.startsWith('brain-');
}

/** The offline embedder: needs no network and downloads nothing. */
export function createOfflineEmbedder(): Promise<Embedder> {
  return Promise.resolve(createHashEmbedder());
}
