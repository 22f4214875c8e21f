import type { Brain, Clock } from '../../src/index.js';
import type { AssistantConfig } from '../config.js';
import type { Log } from '../log.js';
import { createTelegramChannel } from '../channels/telegram/bot.js';
import { schedulerComponents } from '../scheduler/index.js';
import type { ServiceComponent } from './types.js';

/** What a component may need to be built; each branch adds what its components take. */
export interface ComponentDeps {
  brain: Brain;
  clock: Clock;
  log: Log;
}

/**
 * The components `brain agent` runs, in start order, built in this one place: the channels, the
 * scheduler and the MCP client each add their line here (a component its config leaves out is
 * not built). The inbox watcher is the service's own and is added by `startService`.
 */
export function buildComponents(config: AssistantConfig, deps: ComponentDeps): ServiceComponent[] {
  void deps;
  const components: ServiceComponent[] = [];
  if (config.telegram) components.push(createTelegramChannel(config.telegram));
  components.push(...schedulerComponents(config));
  return components;
}
