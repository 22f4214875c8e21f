import { checkVectors, type Embedder } from './embedder.js';

const WORD = /[\p{L}\p{N}]+/gu;

// Frequent words that say nothing about a text's topic.
const STOP = new Set(
  `a an and are as at be been but by can could did do does for from had has have he her hers him his how i if in into is it
  its me my no not of on or our she so than that the their them then there these they this those to too us was we were what
  when where which who whom why will with would you your yours just also very really about`.split(
    /\s+/,
  ),
);

/** FNV-1a, 32 bits. */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A crude English stem: enough to meet "painting", "painted" and "paints" at "paint". */
export function stem(w: string): string {
  if (w.length <= 4) return w;
  return w.replace(/(?:ing|ed|es|s|ly)$/, '');
}

/**
 * Hashed bag of words and character trigrams: needs nothing, works for any language, and finds
 * texts that share word pieces with the query ("photography" ~ "photos").
 */
export function createHashEmbedder(dimension = 512): Embedder {
  const model = `brain-hash-${dimension}-v1`;
  const embedOne = (text: string): Float32Array => {
    const v = new Float32Array(dimension);
    const words = (text.normalize('NFKC').toLowerCase().match(WORD) ?? []).filter(
      (w) => !STOP.has(w),
    );
    const add = (feature: string, weight: number) => {
      const h = hash(feature);
      v[h % dimension]! += h & 0x80000000 ? -weight : weight;
    };
    for (const w of words) {
      const s = stem(w);
      add(`w:${s}`, 1);
      const padded = `<${s}>`;
      const grams = Math.max(1, padded.length - 2);
      for (let i = 0; i + 3 <= padded.length; i++)
        add(`c:${padded.slice(i, i + 3)}`, 0.5 / Math.sqrt(grams));
    }
    return v;
  };
  return {
    provider: 'offline',
    model,
    batchSize: 256,
    // Measured on the LoCoMo dev set (bench/HISTORY.md): at full weight it drowns the words' ranking.
    searchWeight: 0.3,
    embed(texts) {
      return Promise.resolve(checkVectors(texts.map(embedOne), texts.length, model, dimension));
    },
  };
}
