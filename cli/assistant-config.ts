import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { AssistantConfig } from '../agent/index.js';

/**
 * The assistant's environment: where its config file's secrets and `${VAR}`s come from. With
 * cli/config.ts, the CLI's only reading of process.env; commands pass this on, never read it.
 */
export function assistantEnv(): NodeJS.ProcessEnv {
  return process.env;
}

/**
 * The assistant's config file (`--config`, else BRAIN_ASSISTANT_CONFIG, else the default path),
 * checked, with the environment's secrets. Loaded when a command needs it, so commands that do
 * not start the assistant never load its schemas.
 */
export async function loadAssistantConfigFile(file: string | undefined): Promise<AssistantConfig> {
  const { loadAssistantConfig } = await import('../agent/index.js');
  return loadAssistantConfig({ file, env: assistantEnv() });
}

/**
 * Whether there is an assistant config to read: named (`--config`, BRAIN_ASSISTANT_CONFIG), or
 * at the default path. Asked before loading one, so a command that only may use it (`brain
 * extract`) loads none of the assistant where there is none. The default path is the one
 * agent/config.ts's assistantConfigPath gives.
 */
export function assistantConfigExists(file: string | undefined): boolean {
  const env = assistantEnv();
  if (file || env.BRAIN_ASSISTANT_CONFIG) return true;
  const home = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return existsSync(join(home, 'brain', 'assistant.json'));
}
