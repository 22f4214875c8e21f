import type { AssistantConfig } from '../config.js';
import type { ServiceComponent } from '../contracts.js';
import { createCronComponent } from './cron.js';
import { createEmailWatcher } from './email.js';
import { createHeartbeat } from './heartbeat.js';
import { createReflection } from './reflection.js';
import { createReminders } from './reminders.js';

/**
 * The scheduler's components for `brain agent`: reminders and tasks (with their tools), cron
 * jobs, the heartbeat, the email watchers and reflection. Each is built even when its config is empty, so a
 * live reload that adds a job or a watcher applies without a restart.
 */
export function schedulerComponents(config: AssistantConfig): ServiceComponent[] {
  return [
    createReminders(config),
    createCronComponent(),
    createHeartbeat(),
    createEmailWatcher(),
    createReflection(),
  ];
}
