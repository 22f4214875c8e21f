import { z } from 'zod';
import type { Tool } from './types.js';

/** The category of a memory saved in a turn that had taken in content from outside the owner. */
export const FOREIGN_CATEGORY = 'foreign';

const input = z.strictObject({
  content: z.string().trim().min(1, 'must not be empty').max(10_000),
  categories: z.array(z.string().trim().min(1).max(64)).max(16).optional(),
  importance: z.number().min(1).max(3).optional(),
});

/**
 * `save_memory`: a short-term memory of the assistant in the brain, whose source is the user
 * message of this turn, so `brain provenance` leads back to what was said and where.
 */
export const saveMemoryTool: Tool<z.output<typeof input>> = {
  name: 'save_memory',
  description:
    'Remember a fact, preference or decision for later conversations. One self-contained statement; importance 1 (default) to 3.',
  schema: input,
  readOnly: false,
  run: async (args, ctx) => {
    // Saved in a turn that had taken in foreign content: marked, so that it taints the turns
    // whose prompt shows it (agent/memories.ts).
    const foreign = (ctx.taint?.() ?? []).length > 0 ? [FOREIGN_CATEGORY] : [];
    const stm = ctx.brain.knowledge.remember({
      agent: ctx.agent,
      content: args.content,
      categories: [...(args.categories ?? []).filter((c) => c !== FOREIGN_CATEGORY), ...foreign],
      importance: args.importance ?? 1,
      source_message_id: ctx.turnMessageId,
    });
    return { content: `saved ${stm.id}` };
  },
};
