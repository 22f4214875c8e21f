import { readFileSync, readdirSync, realpathSync, statSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import type { Tool } from '../tools/types.js';
import { parseSkill, SKILL_FILE } from './parse.js';
import type { Skill, SkillProblem, SkillSet } from './types.js';
import { createUseSkillTool } from './use-skill.js';

/**
 * The skills of a workspace: `skills/<name>/SKILL.md`, each read when it is new or changed. A turn
 * asks for the set; what that costs when nothing changed is a stat of `skills/` and one of each
 * SKILL.md (an edit in place changes the file's times, not its folder's), so a skill added or
 * edited while the assistant runs is offered at the next turn, and a workspace without `skills/`
 * pays one stat and never loads the YAML parser.
 */

export const SKILLS_FOLDER = 'skills';
export { SKILL_FILE } from './parse.js';
/** The most of a SKILL.md read, in bytes. */
export const MAX_SKILL_BYTES = 256 * 1024;

export type { Skill, SkillProblem, SkillSet } from './types.js';

export interface SkillCatalog {
  /** The most (estimated) tokens the skills take in the prompt (agent/skills/section.ts). */
  readonly budgetTokens: number | undefined;
  /** The skills as they are on disk now (re-read only what changed since the last call). */
  current(): Promise<SkillSet>;
  /** The set the last `current()` found (empty before the first). */
  last(): SkillSet;
  /** use_skill when the last `current()` found a skill, else none. */
  tools(): readonly Tool[];
}

const EMPTY: SkillSet = { skills: [], problems: [] };

interface Entry {
  stamp: string;
  result: Skill | SkillProblem;
}

type ParseYaml = (source: string) => unknown;

export function createSkillCatalog(workspace: string, budgetTokens?: number): SkillCatalog {
  const root = join(workspace, SKILLS_FOLDER);
  let rootStamp = '';
  let folders: string[] = [];
  const entries = new Map<string, Entry>();
  let set: SkillSet = EMPTY;
  let parseYaml: ParseYaml | undefined;
  let useSkill: readonly Tool[] | undefined;

  const listFolders = (): string[] | undefined => {
    const stat = statSync(root, { throwIfNoEntry: false });
    if (!stat?.isDirectory()) return undefined;
    const stamp = stampOf(stat);
    if (stamp !== rootStamp) {
      rootStamp = stamp;
      folders = readdirSync(root, { withFileTypes: true })
        .filter((d) => (d.isDirectory() || d.isSymbolicLink()) && !d.name.startsWith('.'))
        .map((d) => d.name)
        .sort();
    }
    return folders;
  };

  const catalog: SkillCatalog = {
    budgetTokens,
    last: () => set,
    tools: () =>
      set.skills.length === 0
        ? []
        : (useSkill ??= [createUseSkillTool(() => catalog.current()) as Tool]),
    async current() {
      const names = listFolders();
      if (!names || names.length === 0) {
        entries.clear();
        set = EMPTY;
        return set;
      }
      let changed = names.length !== entries.size;
      const seen = new Set(names);
      for (const name of entries.keys()) if (!seen.has(name)) entries.delete(name);
      for (const name of names) {
        const file = join(root, name, SKILL_FILE);
        let stat: Stats | undefined;
        try {
          stat = statSync(file, { throwIfNoEntry: false });
        } catch (err) {
          // A folder that may not be entered: a problem the listing shows.
          entries.set(name, {
            stamp: 'error',
            result: { folder: name, error: `cannot read: ${(err as Error).message}` },
          });
          changed = true;
          continue;
        }
        const stamp = stat ? stampOf(stat) : 'missing';
        if (entries.get(name)?.stamp === stamp) continue;
        changed = true;
        parseYaml ??= (await import('yaml')).parse as ParseYaml;
        entries.set(name, { stamp, result: stat ? load(root, name, parseYaml) : missing(name) });
      }
      if (changed) {
        const skills: Skill[] = [];
        const problems: SkillProblem[] = [];
        for (const name of names) {
          const result = entries.get(name)?.result;
          if (!result) continue;
          if ('error' in result) problems.push(result);
          else skills.push(result);
        }
        set = { skills, problems };
      }
      return set;
    },
  };
  return catalog;
}

/** Size, inode and change time: an edit, a replacement or a rename shows in one of them. */
function stampOf(stat: Stats): string {
  return `${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;
}

function missing(folder: string): SkillProblem {
  return { folder, error: `no ${SKILL_FILE} in the folder` };
}

function load(root: string, folder: string, parseYaml: ParseYaml): Skill | SkillProblem {
  let dir: string;
  let text: string;
  try {
    dir = realpathSync(join(root, folder));
    const file = join(dir, SKILL_FILE);
    const size = statSync(file).size;
    if (size > MAX_SKILL_BYTES)
      return { folder, error: `${SKILL_FILE} is ${size} bytes; the most is ${MAX_SKILL_BYTES}` };
    text = readFileSync(file, 'utf8');
  } catch (err) {
    return { folder, error: `cannot read ${SKILL_FILE}: ${(err as Error).message}` };
  }
  const parsed = parseSkill(text, folder, parseYaml);
  if ('error' in parsed) return { folder, error: parsed.error };
  return { ...parsed, dir };
}
