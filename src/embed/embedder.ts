import { BrainError } from '../errors.js';

/** What a text is for: models such as nomic-embed-text embed documents and queries differently. */
export type EmbedKind = 'document' | 'query';

/** Models made in this process without network carry this prefix; Ollama's never do. */
export function isOfflineModel(model: string): boolean {
  return model.startsWith('brain-');
}

export interface EmbedOptions {
  /** Abort the call (e.g. a query that must not hold up a search). */
  signal?: AbortSignal;
}

/** Turns texts into vectors. Implementations: Ollama over HTTP, and offline ones in this process. */
export interface Embedder {
  /** `ollama` or `offline`. */
  readonly provider: string;
  /** Stored with every vector; vectors of different models never meet. */
  readonly model: string;
  /** How many texts one call should carry. */
  readonly batchSize: number;
  /** How much its ranking counts against the words' in hybrid search (1: as much). */
  readonly searchWeight?: number;
  /** Unit-length vectors, one per text, all of one dimension; throws BrainError UPSTREAM_FAILED. */
  embed(texts: string[], kind: EmbedKind, options?: EmbedOptions): Promise<Float32Array[]>;
}

/**
 * Check what a provider returned and scale each vector to unit length: one vector per text, one
 * dimension for all (and the expected one, when known), finite numbers, not all zero.
 */
export function checkVectors(
  raw: ArrayLike<unknown>[],
  count: number,
  source: string,
  expectedDimension?: number,
): Float32Array[] {
  if (raw.length !== count) {
    throw new BrainError(
      'UPSTREAM_FAILED',
      `${source} returned ${raw.length} vectors for ${count} texts`,
    );
  }
  const dimension = expectedDimension ?? raw[0]?.length ?? 0;
  return raw.map((v, i) => {
    if (v.length !== dimension || dimension === 0) {
      throw new BrainError(
        'UPSTREAM_FAILED',
        `${source} returned a vector of dimension ${v.length}; expected ${dimension}`,
      );
    }
    const out = new Float32Array(dimension);
    let norm = 0;
    for (let j = 0; j < dimension; j++) {
      const x = v[j];
      if (typeof x !== 'number' || !Number.isFinite(x)) {
        throw new BrainError(
          'UPSTREAM_FAILED',
          `${source} returned a vector with NaN or infinite values (text ${i + 1})`,
        );
      }
      out[j] = x;
      norm += x * x;
    }
    if (norm === 0) return out; // an all-zero vector (e.g. a text with no known words) matches nothing
    const scale = 1 / Math.sqrt(norm);
    for (let j = 0; j < dimension; j++) out[j]! *= scale;
    return out;
  });
}

/** A failed embedding call; `unavailable` when the provider could not be reached at all. */
export class EmbedderError extends BrainError {
  readonly unavailable: boolean;

  constructor(message: string, options: { unavailable: boolean; cause?: unknown }) {
    super('UPSTREAM_FAILED', message, { cause: options.cause });
    this.name = 'EmbedderError';
    this.unavailable = options.unavailable;
  }
}
