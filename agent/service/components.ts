import type { Brain, Clock, ExtractThreads } from '../../src/index.js';
import type { AssistantConfig } from '../config.js';
import type { Log } from '../log.js';
import { schedulerComponents } from '../scheduler/index.js';
import { createDelegation } from '../delegation/component.js';
import { createMcpManager } from '../mcp/manager.js';
import { withSkillServers } from '../skills/servers.js';
import {
  createExtraction,
  createIdleMaintenance,
  createWebhooksOut,
  type MakeExtractor,
} from './maintenance.js';
import type { ServiceComponent } from '../contracts.js';

/** What a component may need to be built; each branch adds what its components take. */
export interface ComponentDeps {
  brain: Brain;
  clock: Clock;
  log: Log;
  /**
   * Which threads the background extraction reads (BRAIN_EXTRACT_THREADS); the config's
   * `extract.threads` beats it. None: it does not run.
   */
  extractThreads?: ExtractThreads;
}

/**
 * The components `brain agent` runs, in start order, built in this one place: the channels, the
 * scheduler and the MCP client each add their line here (a component its config leaves out is
 * not built). The inbox watcher is the service's own and is added by `startService`.
 *
 * A channel's module, and its library (grammY, discord.js), is imported only when the config
 * has that channel: a service without Discord never loads discord.js.
 */
export async function buildComponents(
  config: AssistantConfig,
  deps: ComponentDeps,
): Promise<ServiceComponent[]> {
  const components: ServiceComponent[] = [];
  if (config.telegram) {
    const { createTelegramChannel } = await import('../channels/telegram/bot.js');
    components.push(createTelegramChannel(config.telegram));
  }
  if (config.discord) {
    const { createDiscordChannel } = await import('../channels/discord/channel.js');
    components.push(createDiscordChannel({ config: config.discord, log: deps.log }));
  }
  components.push(...schedulerComponents(config));
  // delegate_task and the background tasks it queues on the lane.
  components.push(createDelegation(config));
  // The MCP client (agent/mcp/): always built, so servers added to mcpServers later start live.
  // With the servers of the skills the config names (agent/skills/servers.ts), read again at
  // each reload of the config.
  const mcp = createMcpManager({
    config: await withSkillServers(config),
    log: deps.log,
    clock: deps.clock,
  });
  mcp.reconfigure = async (next) => mcp.apply(await withSkillServers(next));
  components.push(mcp);
  // Idle upkeep of the brain's file (src/maintenance/idle.ts): always, like the MCP client.
  components.push(createIdleMaintenance());
  if (config.webhooks.length > 0) components.push(createWebhooksOut(config.webhooks));
  if (config.hooks.length > 0) {
    const { createHooksIn } = await import('./hooks-in.js');
    components.push(createHooksIn(config.hooks));
  }
  // Knowledge from the conversation, read in the background like the MCP server does: by the
  // model `extract.model` names, else by the offline extractor.
  const threads = config.extract?.threads ?? deps.extractThreads;
  if (threads && threads !== 'none')
    components.push(
      createExtraction(threads, config.extract?.model ? modelExtractor(config) : undefined),
    );
  return components;
}

/** The model extractor, its module (and the SDK behind it) loaded when extraction starts. */
function modelExtractor(config: AssistantConfig): MakeExtractor {
  return async (host, signal) => {
    const { configuredExtractor } = await import('../extract/create.js');
    const configured = configuredExtractor(config, {
      brain: host.brain,
      log: host.log,
      clock: host.clock,
      signal,
    });
    // The config named a model: configuredExtractor returned one.
    return configured!.extractor;
  };
}
