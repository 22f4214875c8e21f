import type { LocomoConversation } from './locomo-format.js';
import type { Extractor } from '../knowledge/extract/types.js';
import type { ExtractEvalOptions, ExtractEvalReport } from './extract.js';
import type { LocomoEvalOptions, LocomoReport } from './locomo.js';

/**
 * Run the LoCoMo evaluation (eval/locomo.ts) on a dataset document. Its code (the dataset's
 * schema, the arms, the haystack builder) is loaded when it runs, not with the library's face.
 */
export async function evalLocomo(
  doc: unknown,
  options: LocomoEvalOptions = {},
): Promise<LocomoReport> {
  return (await import('./locomo.js')).evalLocomo(doc, options);
}

/** Check a LoCoMo dataset document: its conversations, or INVALID_INPUT naming what is wrong. */
export async function readLocomo(doc: unknown): Promise<LocomoConversation[]> {
  return (await import('./locomo-format.js')).readLocomo(doc);
}

/**
 * How much of each LoCoMo conversation `extractor` learns, against the annotated observations,
 * and whether what it learned helps retrieval (eval/extract.ts, loaded when it runs).
 */
export async function evalExtract(
  doc: unknown,
  extractor: Extractor,
  options: ExtractEvalOptions = {},
): Promise<ExtractEvalReport> {
  return (await import('./extract.js')).evalExtract(doc, extractor, options);
}
