import { z } from 'zod';
import { PROFILE_CATEGORY, readTimeBound } from '../../src/index.js';
import type { Tool, ToolContext } from './types.js';

/** The category of a memory saved in a turn that had taken in content from outside the owner. */
export const FOREIGN_CATEGORY = 'foreign';

const input = z.strictObject({
  content: z.string().trim().min(1, 'must not be empty').max(10_000),
  categories: z.array(z.string().trim().min(1).max(64)).max(16).optional(),
  importance: z.number().min(1).max(3).optional(),
  occurred_at: z.string().trim().min(1).max(200).optional(),
});

/**
 * `save_memory`: a short-term memory of the assistant in the brain, whose source is the user
 * message of this turn, so `brain provenance` leads back to what was said and where. An event
 * time ("the launch is next Tuesday") is read in the owner's zone.
 */
export function createSaveMemoryTool(
  options: { timeZone?: string | undefined } = {},
): Tool<z.output<typeof input>> {
  return {
    name: 'save_memory',
    description:
      'Remember a fact, preference or decision for later conversations. One self-contained statement; importance 1 (default) to 3; category "profile" for a fact about the owner (name, time zone, preferences, people, projects); occurred_at when it says when something happens or happened (ISO date or e.g. "next Tuesday").',
    schema: input,
    readOnly: false,
    run: async (args, ctx) => {
      const occurred_at =
        args.occurred_at === undefined
          ? undefined
          : await readTimeBound('occurred_at', args.occurred_at, {
              now: ctx.clock(),
              timeZone: options.timeZone,
            });
      const categories = (args.categories ?? []).map((c) => c.toLowerCase());
      const profile = categories.some(isProfile);
      const refused = profile ? notOwnWords(ctx) : undefined;
      if (profile && refused === undefined) {
        const fact = ctx.brain.knowledge.setProfileFact({
          agent: ctx.agent,
          content: args.content,
          source_message_id: ctx.turnMessageId,
        });
        return { content: `saved ${fact.id} in the owner's profile` };
      }
      // Saved in a turn that had taken in foreign content: marked, so that it taints the turns
      // whose prompt shows it (agent/memories.ts).
      const foreign = (ctx.taint?.() ?? []).length > 0 ? [FOREIGN_CATEGORY] : [];
      const stm = ctx.brain.knowledge.remember({
        agent: ctx.agent,
        content: args.content,
        categories: [
          ...categories.filter((c) => c !== FOREIGN_CATEGORY && !isProfile(c)),
          ...foreign,
        ],
        importance: args.importance ?? 1,
        occurred_at,
        source_message_id: ctx.turnMessageId,
      });
      return {
        content: profile
          ? `saved ${stm.id}, not in the owner's profile: ${refused}; only the owner's own words in a turn with nothing else go there`
          : `saved ${stm.id}`,
      };
    },
  };
}

/** save_memory reading event times in the system's zone (tests, and callers with no config). */
export const saveMemoryTool = createSaveMemoryTool();

const isProfile = (c: string) => c === PROFILE_CATEGORY || c.startsWith(`${PROFILE_CATEGORY}:`);

/**
 * Why what the turn knows may not be the owner's own words, or undefined when it is: the owner
 * drives it, nobody delegated it and it has taken in nothing from anyone else. A stranger in a
 * group, another agent, a forwarded message or a web page saying who the owner is does not make
 * the owner's profile.
 */
function notOwnWords(ctx: ToolContext): string | undefined {
  if (ctx.driver !== 'owner') return `this turn is not the owner's (${ctx.driver ?? 'unknown'})`;
  // A delegated sub-turn's input is the model's words, not the owner's.
  if ((ctx.depth ?? 0) > 0) return 'this is a delegated task';
  const taint = ctx.taint?.() ?? [];
  if (taint.length > 0)
    return `this turn has taken in text the owner did not write (${taint.slice(0, 3).join(', ')})`;
  return undefined;
}
