import type { ParsedSkill } from './parse.js';

/** The shapes of the workspace's skills (agent/skills/catalog.ts reads them). */

export interface Skill extends ParsedSkill {
  /** The real path of its folder (symlinks resolved): use_skill reads nothing outside it. */
  dir: string;
}

export interface SkillProblem {
  /** The folder under `skills/`. */
  folder: string;
  error: string;
}

export interface SkillSet {
  /** Valid skills, by name. */
  skills: readonly Skill[];
  /** Folders whose SKILL.md is missing or wrong, with why. */
  problems: readonly SkillProblem[];
}
