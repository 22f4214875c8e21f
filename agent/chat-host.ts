import type { Brain, Clock } from '../src/index.js';
import type { Assistant } from './assistant.js';
import type { AssistantConfig } from './config.js';
import type { Log } from './log.js';
import { createMcpManager } from './mcp/manager.js';
import { createReminders } from './scheduler/reminders.js';
import { createDelegation } from './delegation/component.js';
import { createServiceHost, turnOrigin } from './service/host.js';
import type { Tool } from './tools/types.js';

/** What `brain chat` runs beside its assistant: the components whose tools its turns get. */
export interface ChatComponents {
  /** The components' tools for an owner's turn of the session, as `brain agent` gives them. */
  tools(session: string): readonly Tool[];
  /** Stop the MCP servers: the chat is over. */
  stop(): Promise<void>;
}

/**
 * The components of `brain agent` a terminal turn needs, given to its turns through the same host
 * code (agent/service/host.ts `componentTools`), so the owner's turn in `brain chat` gets what the
 * owner's turn on Telegram gets: the reminders' and tasks' tools and the MCP servers' tools.
 *
 * The reminders component is not started: its tools write rows in the brain, and `brain agent`
 * fires them (a reminder is claimed in the brain, so it fires once whichever process sees it).
 * The MCP manager is started here and stopped with the chat.
 */
export async function startChatComponents(options: {
  brain: Brain;
  config: AssistantConfig;
  clock: Clock;
  log: Log;
  assistant: Assistant;
}): Promise<ChatComponents> {
  const { brain, config, clock, log, assistant } = options;
  const mcp = createMcpManager({ config: config.mcp, log, clock });
  const delegation = createDelegation(config, { background: false });
  const host = createServiceHost({
    brain,
    config,
    clock,
    log,
    assistant: () => assistant,
    components: [createReminders(config), mcp, delegation],
  });
  await mcp.start(host);
  // delegate_task for the terminal's turns: waited for only (nothing here could tell the owner).
  await delegation.start(host);
  return {
    tools: (session) =>
      host.componentTools(
        session,
        // The terminal's words are the owner's (agent/service/host.ts `turnOrigin`).
        turnOrigin({
          session,
          text: '',
          source: 'chat',
          priority: 'owner',
          unattended: false,
          io: { onText() {} },
        }),
      ),
    async stop() {
      await Promise.all([mcp.stop(), delegation.stop()]);
      await host.close();
    },
  };
}
