import type { Command } from 'commander';
import { loadAssistantConfigFile } from '../assistant-config.js';
import { bold, dim, oneLine, printJson, println, yellow } from '../output.js';
import type { GlobalOptions } from '../run.js';

interface SkillsOptions {
  config?: string;
}

/**
 * `brain skills`: the skills in the assistant's workspace (`skills/<name>/SKILL.md`), each with its
 * description and MCP servers, then every folder that is wrong and why. Exit 1 when one is wrong.
 */
export function registerSkills(program: Command, globals: () => GlobalOptions): void {
  program
    .command('skills')
    .description("the assistant's skills (workspace/skills/<name>/SKILL.md) and any error in them")
    .option(
      '--config <file>',
      'the assistant config (else BRAIN_ASSISTANT_CONFIG, else ~/.config/brain/assistant.json)',
    )
    .action(async (opts: SkillsOptions) => {
      const config = await loadAssistantConfigFile(opts.config);
      const { skillsReport } = await import('../../agent/index.js');
      const report = await skillsReport(config);
      if (report.problems.length > 0) process.exitCode = 1;
      if (globals().json) return printJson(report);
      if (report.skills.length === 0 && report.problems.length === 0)
        return println(`no skills in ${report.folder}`);
      for (const s of report.skills) {
        println(`${bold(s.name)}  ${oneLine(s.description, 100)}`);
        for (const m of s.mcpServers)
          println(
            dim(
              `  mcp server ${m.name}: ${m.enabled ? 'starts with the assistant' : `off (add "${s.name}" to skills.mcpServers to start it)`}`,
            ),
          );
      }
      for (const p of report.problems) println(`${yellow('error')} ${p.folder}: ${p.error}`);
    });
}
