import { z } from 'zod';
import type { BrainContext } from '../context.js';
import { knowledgeOrMessageId, parseInput } from '../validation.js';
import { runProvenance, type Provenance, type ProvenanceArgs } from './provenance-run.js';

export { derivedFrom, type Provenance, type ProvenanceArgs } from './provenance-run.js';

const provenanceInput = z.strictObject({
  id: knowledgeOrMessageId,
  context: z.coerce.number().int().min(0).max(50).default(2),
});
export type ProvenanceInput = z.input<typeof provenanceInput>;

/** From knowledge to the message that produced it (and its thread), or from a message to what was derived from it. */
export function findProvenance(ctx: BrainContext, input: ProvenanceInput): Provenance {
  return runProvenance(ctx, parseProvenanceInput(input));
}

/** The input checked by the schema: defaults applied, or a BrainError naming the field. */
export function parseProvenanceInput(input: ProvenanceInput): ProvenanceArgs {
  return parseInput(provenanceInput, input);
}
