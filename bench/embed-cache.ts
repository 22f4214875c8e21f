// An embedder that remembers: each (kind, text) is embedded once by the wrapped embedder and its
// vector kept in a file (JSON lines, the vector as base64 of its float32 bytes), so a sweep over
// ranking constants re-runs search without re-embedding. Benchmarks only: the file lives under
// /tmp, never in the repository.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import type { Embedder, EmbedKind } from '../src/index.js';

interface Line {
  model: string;
  kind: EmbedKind;
  text: string;
  vector: string;
}

function keyOf(kind: EmbedKind, text: string): string {
  return `${kind}\u0000${text}`;
}

export function cachedEmbedder(
  inner: Embedder,
  file: string,
): Embedder & { stats: { hits: number; misses: number } } {
  const kept = new Map<string, Float32Array>();
  if (existsSync(file)) {
    for (const raw of readFileSync(file, 'utf8').split('\n')) {
      if (!raw) continue;
      const line = JSON.parse(raw) as Line;
      if (line.model !== inner.model) continue;
      const bytes = Buffer.from(line.vector, 'base64');
      kept.set(
        keyOf(line.kind, line.text),
        new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)),
      );
    }
  }
  const stats = { hits: 0, misses: 0 };
  return {
    provider: inner.provider,
    model: inner.model,
    batchSize: inner.batchSize,
    ...(inner.searchWeight === undefined ? {} : { searchWeight: inner.searchWeight }),
    stats,
    async embed(texts, kind, options) {
      const missing = [...new Set(texts.filter((t) => !kept.has(keyOf(kind, t))))];
      stats.hits += texts.length - missing.length;
      stats.misses += missing.length;
      if (missing.length > 0) {
        const vectors = await inner.embed(missing, kind, options);
        const lines = missing.map((text, i) => {
          const v = vectors[i]!;
          kept.set(keyOf(kind, text), v);
          const b64 = Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
          return JSON.stringify({ model: inner.model, kind, text, vector: b64 } satisfies Line);
        });
        appendFileSync(file, lines.join('\n') + '\n');
      }
      return texts.map((t) => kept.get(keyOf(kind, t))!);
    },
  };
}
