import { createHashEmbedder, type Brain, type Embedder } from '../../src/index.js';

export interface VectorsResult {
  /** Embeds the benchmark's queries from a table made beforehand: no model time in the figures. */
  embedder: Embedder;
  items: number;
  seconds: number;
}

/**
 * Give every message, STM entry and atom a vector through the brain's own queue and store,
 * with the offline hashing embedder (cheap; the index does not care what vectors mean).
 */
export async function embedEverything(
  brain: Brain,
  queries: string[],
  onProgress?: (done: number, total: number) => void,
): Promise<VectorsResult> {
  const started = performance.now();
  const hash = createHashEmbedder();
  const total = brain.embed.embedStatus().pending;
  const result = await brain.embed.embedQueued(hash, {
    batchSize: 1024,
    onProgress: (p) => onProgress?.(p.done, total),
  });
  if (result.failed > 0 || result.stopped_by) {
    throw new Error(`embedding failed: ${result.stopped_by ?? result.errors.join('; ')}`);
  }
  const vectors = await hash.embed(queries, 'query');
  const table = new Map(queries.map((q, i) => [q, vectors[i]!]));
  const embedder: Embedder = {
    provider: hash.provider,
    model: hash.model,
    batchSize: hash.batchSize,
    searchWeight: hash.searchWeight,
    embed: (texts, kind, options) =>
      texts.every((t) => table.has(t))
        ? Promise.resolve(texts.map((t) => table.get(t)!))
        : hash.embed(texts, kind, options),
  };
  return { embedder, items: result.embedded, seconds: (performance.now() - started) / 1000 };
}
