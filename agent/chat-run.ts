import { systemClock, type Brain, type Embedder } from '../src/index.js';
import { createAssistant, type Assistant } from './assistant.js';
import { startChatComponents } from './chat-host.js';
import { runRepl, type ReplStreams } from './chat.js';
import type { AssistantConfig } from './config.js';
import { knownCommand, runCommand } from './conversation/commands.js';
import { chatSession } from './conversation/sessions.js';
import type { Log } from './log.js';
import type { TurnResult } from './loop.js';

/**
 * `brain chat` without the command line: the assistant with the components whose tools the
 * owner's turns get (reminders, tasks, MCP servers), in the session `chat/NAME`. A conversation
 * in the terminal (`repl`), or one message (`say`): a slash command is answered by the
 * conversation module and costs no model call; anything else is one unattended turn.
 */

export interface ChatOptions {
  brain: Brain;
  config: AssistantConfig;
  log: Log;
  embedder?: Embedder | undefined;
  /** The session's name after `chat/` (default `default`, the owner's session). */
  session?: string;
}

export type SaidResult =
  { kind: 'command'; command: string; reply: string } | { kind: 'turn'; result: TurnResult };

export interface Chat {
  readonly session: string;
  readonly assistant: Assistant;
  /** The conversation on these streams until its input ends or `/exit`. */
  repl(streams: ReplStreams, signals?: NodeJS.EventEmitter): Promise<void>;
  /** One message; rejects when `signal` aborts before the turn began (another turn ran). */
  say(message: string, signal?: AbortSignal): Promise<SaidResult>;
  /** Stop the MCP servers. */
  close(): Promise<void>;
}

export async function openChat(options: ChatOptions): Promise<Chat> {
  const { brain, config, log } = options;
  const assistant = createAssistant({
    brain,
    config,
    clock: systemClock,
    log,
    embedder: options.embedder,
  });
  const session = chatSession(options.session ?? 'default');
  const components = await startChatComponents({
    brain,
    config,
    clock: systemClock,
    log,
    assistant,
  });
  return {
    session,
    assistant,
    repl: (streams, signals) =>
      runRepl({
        assistant,
        brain,
        session,
        streams,
        ...(signals ? { signals } : {}),
        tools: components.tools,
      }),
    async say(message, signal) {
      const command = knownCommand(message);
      if (command) {
        const { reply } = runCommand(command.name, command.arg, {
          brain,
          config,
          session,
          owner: true,
          models: assistant.models,
          busy: () => false,
          cancel: () => {},
        });
        return { kind: 'command', command: command.name, reply };
      }
      const result = await assistant.turn(
        session,
        message,
        { onText: () => {} },
        // One message and exit: nobody is there to answer an ask, so it is denied.
        {
          ...(signal ? { signal } : {}),
          unattended: true,
          tools: () => components.tools(session),
        },
      );
      return { kind: 'turn', result };
    },
    close: () => components.stop(),
  };
}
