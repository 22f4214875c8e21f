import type { Command } from 'commander';
import type { ProfileFact } from '../../src/index.js';
import { loadAssistantConfigFile } from '../assistant-config.js';
import { bold, dim, printJson, println, shortTime } from '../output.js';
import { creating, withBrain, type GlobalOptions } from '../run.js';

interface ProfileOptions {
  config?: string;
}

const configOption = [
  '--config <file>',
  'the assistant config (else BRAIN_ASSISTANT_CONFIG, else ~/.config/brain/assistant.json)',
] as const;

/**
 * `brain profile`: what the assistant knows of its owner: USER.md's place and the facts learned
 * from the owner's messages, each with the message it came from. `set <key> <text>` states one
 * (replacing the fact with that key), `forget <id>` takes one out (it lapses; nothing is deleted).
 */
export function registerProfile(program: Command, globals: () => GlobalOptions): void {
  const profile = program
    .command('profile')
    .description("the owner's profile the assistant keeps: facts with their sources")
    .option(...configOption)
    .action(async (opts: ProfileOptions) => {
      const config = await loadAssistantConfigFile(opts.config);
      const { join } = await import('node:path');
      const { existsSync } = await import('node:fs');
      await withBrain(
        globals(),
        ({ brain, json }) => {
          const facts = brain.knowledge.profile({ owner: config.owner, assistant: config.agent });
          const userFile = join(config.workspace, 'USER.md');
          const hasUserFile = existsSync(userFile);
          if (json)
            return printJson({
              owner: config.owner,
              user_file: hasUserFile ? userFile : null,
              facts,
            });
          println(
            hasUserFile ? `USER.md: ${userFile}` : dim(`no USER.md (write one at ${userFile})`),
          );
          if (facts.length === 0) return println(`no profile facts about ${config.owner}`);
          for (const f of facts) println(formatFact(f));
        },
        ['knowledge'],
      );
    });
  profile
    .command('set <key> <text...>')
    .description('state a fact about the owner (replaces the fact with this key)')
    .option(...configOption)
    .action(async (key: string, words: string[], opts: ProfileOptions, command: Command) => {
      const config = await loadAssistantConfigFile(opts.config ?? parentConfig(command));
      await withBrain(
        creating(globals()),
        ({ brain, json }) => {
          const fact = brain.knowledge.setProfileFact({
            agent: config.owner,
            key,
            content: words.join(' '),
          });
          if (json) return printJson(fact);
          println(`saved ${fact.id}  ${fact.key}: ${fact.content}`);
        },
        ['knowledge'],
      );
    });
  profile
    .command('forget <id>')
    .description('take a fact out of the profile (stm_…)')
    .option(...configOption)
    .action(async (id: string, opts: ProfileOptions, command: Command) => {
      await loadAssistantConfigFile(opts.config ?? parentConfig(command));
      await withBrain(
        globals(),
        ({ brain, json }) => {
          brain.knowledge.forgetProfileFact(id);
          if (json) return printJson({ forgotten: id });
          println(`forgot ${id}`);
        },
        ['knowledge'],
      );
    });
}

function parentConfig(command: Command): string | undefined {
  return (command.parent?.opts() as ProfileOptions | undefined)?.config;
}

function formatFact(f: ProfileFact): string {
  const head = `${bold(f.id)}  ${f.key ? `${f.key}: ` : ''}${f.content}`;
  const source = f.source
    ? `from ${f.source.message_id} by ${f.source.from} in ${f.source.thread_id}, ${shortTime(f.source.at)}`
    : `set by ${f.agent}, ${shortTime(f.created_at)}`;
  return `${head}\n  ${dim(source)}`;
}
