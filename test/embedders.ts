import type { Embedder } from '../src/index.js';

/**
 * A tiny in-process embedder for tests: one dimension per listed word (plus one for everything
 * else), so similarities are predictable. Implements the Embedder interface; not a module mock.
 */
export function wordEmbedder(
  words: string[],
  options: { model?: string; failOn?: string } = {},
): Embedder & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    provider: 'offline',
    model: options.model ?? 'brain-test-words',
    batchSize: 8,
    calls,
    embed(texts) {
      calls.push(texts);
      if (options.failOn && texts.some((t) => t.includes(options.failOn!))) {
        return Promise.reject(new Error(`cannot embed "${options.failOn}"`));
      }
      return Promise.resolve(
        texts.map((t) => {
          const v = new Float32Array(words.length + 1);
          const lower = t.toLowerCase();
          words.forEach((w, i) => {
            if (lower.includes(w)) v[i] = 1;
          });
          v[words.length] = 0.05;
          let n = 0;
          for (const x of v) n += x * x;
          return v.map((x) => x / Math.sqrt(n));
        }),
      );
    },
  };
}
