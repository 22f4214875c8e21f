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
