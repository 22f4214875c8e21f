import { resolveServer, type McpConfig, type McpServerConfig } from '../mcp/config.js';
import { createSkillCatalog, type Skill } from './catalog.js';

/**
 * MCP servers a skill declares in its front matter (`mcpServers`, in the config's shape), checked
 * by the same rules as the config's entries. Each is named `<skill>-<server>`, so its tools are
 * `mcp__<skill>-<server>__<tool>` and never take the name of a configured server. A skill's server
 * runs a program: it starts only when the config names the skill in `skills.mcpServers` (a skill
 * copied from elsewhere, or written by the assistant, must not run code on its own say).
 */

export interface SkillServers {
  servers: McpServerConfig[];
  errors: Array<{ server: string; message: string }>;
}

type Env = Record<string, string | undefined>;

export function skillServers(skill: Skill, env: Env): SkillServers {
  const servers: McpServerConfig[] = [];
  const errors: SkillServers['errors'] = [];
  for (const [name, raw] of Object.entries(skill.mcpServers)) {
    const server = `${skill.name}-${name}`;
    const resolved = resolveServer(server, raw, env);
    if ('error' in resolved)
      errors.push({
        server,
        message: `skills/${skill.name}: ${resolved.error.replace(`mcpServers.${server}`, `mcpServers.${name}`)}`,
      });
    else servers.push(resolved);
  }
  return { servers, errors };
}

/**
 * The config's MCP servers and those of the skills `skills.mcpServers` names, checked the same
 * way. A skill's `${VAR}`s are filled from the environment commands get (secrets left out): a
 * skill cannot hand the assistant's keys to its server. Servers of skills not named, and names
 * the config already uses, do not run.
 */
export async function withSkillServers(config: {
  workspace: string;
  mcp: McpConfig;
  skills: { mcpServers: readonly string[] };
  commandEnv: Record<string, string>;
}): Promise<McpConfig> {
  if (config.skills.mcpServers.length === 0) return config.mcp;
  const { skills } = await createSkillCatalog(config.workspace).current();
  const taken = new Set(config.mcp.servers.map((s) => s.name));
  const servers = [...config.mcp.servers];
  const errors = [...config.mcp.errors];
  for (const skill of skills) {
    if (!config.skills.mcpServers.includes(skill.name)) continue;
    const found = skillServers(skill, config.commandEnv);
    errors.push(...found.errors);
    for (const server of found.servers) {
      if (taken.has(server.name))
        errors.push({
          server: server.name,
          message: `skills/${skill.name}: mcpServers: ${server.name} is a server of the config already`,
        });
      else {
        taken.add(server.name);
        servers.push(server);
      }
    }
  }
  return { ...config.mcp, servers, errors };
}
