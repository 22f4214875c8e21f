import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CheckItem } from '../contracts.js';
import { createSkillCatalog, SKILLS_FOLDER } from './catalog.js';
import { skillServers } from './servers.js';

/** What `brain skills` shows: each skill, its servers, and every folder that is wrong, with why. */
export interface SkillsReport {
  folder: string;
  skills: Array<{
    name: string;
    description: string;
    dir: string;
    /** Its MCP servers (`<skill>-<server>`) and whether the config lets them start. */
    mcpServers: Array<{ name: string; enabled: boolean }>;
  }>;
  problems: Array<{ folder: string; error: string }>;
}

export async function skillsReport(options: {
  workspace: string;
  /** `skills.mcpServers` of the config: the skills whose servers may start. */
  serversOf: readonly string[];
  env: Record<string, string | undefined>;
}): Promise<SkillsReport> {
  const set = await createSkillCatalog(options.workspace).current();
  const problems = set.problems.map((p) => ({ ...p }));
  const skills = set.skills.map((skill) => {
    const { servers, errors } = skillServers(skill, options.env);
    for (const e of errors) problems.push({ folder: skill.name, error: e.message });
    return {
      name: skill.name,
      description: skill.description,
      dir: skill.dir,
      mcpServers: servers.map((s) => ({
        name: s.name,
        enabled: options.serversOf.includes(skill.name),
      })),
    };
  });
  return { folder: join(options.workspace, SKILLS_FOLDER), skills, problems };
}

/** `brain agent --check`'s line on the skills; none when the workspace has no skills/ folder. */
export async function checkSkills(config: {
  workspace: string;
  skills: { mcpServers: readonly string[] };
  commandEnv: Record<string, string>;
}): Promise<CheckItem[]> {
  if (!existsSync(join(config.workspace, SKILLS_FOLDER))) return [];
  const report = await skillsReport({
    workspace: config.workspace,
    serversOf: config.skills.mcpServers,
    env: config.commandEnv,
  });
  const count = `${report.skills.length} skill${report.skills.length === 1 ? '' : 's'}`;
  return [
    {
      name: 'skills',
      ok: report.problems.length === 0,
      detail:
        report.problems.length === 0
          ? count
          : `${count}; broken: ${report.problems.map((p) => `${p.folder}: ${p.error}`).join('; ')} (brain skills)`,
    },
  ];
}
