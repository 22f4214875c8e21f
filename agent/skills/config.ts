import { z } from 'zod';
import { SKILL_NAME } from './parse.js';
import { SKILLS_BUDGET_TOKENS } from './section.js';

/** `skills` in the assistant's config. */
export const skillsConfig = z
  .strictObject({
    /** The most (estimated) tokens the skills' names and descriptions take in the prompt. */
    budgetTokens: z.number().int().min(0).max(100_000).default(SKILLS_BUDGET_TOKENS),
    /** Skills, by name, whose `mcpServers` may start: a skill's server runs a program. */
    mcpServers: z
      .array(z.string().regex(SKILL_NAME, 'must be a skill name (lowercase letters, digits, -)'))
      .default([]),
  })
  .prefault({});
export type SkillsConfig = z.output<typeof skillsConfig>;
