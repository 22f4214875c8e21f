import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import {
  BrainError,
  agentName,
  packageVersion,
  watchBrain,
  zodField,
  type Brain,
  type BrainWatcher,
  type Embedder,
} from '../src/index.js';
import { silentLogger, type Logger } from './log.js';
import { registerPrompts } from './prompts.js';
import { registerResources } from './resources.js';
import { registerSubscriptions } from './subscriptions.js';
import type { ToolContext } from './tools/define.js';
import { registerAttachmentResource } from './attachment-resource.js';
import { registerAckMessage } from './tools/ack-message.js';
import { registerCreateAtom } from './tools/create-atom.js';
import { registerFindProvenance } from './tools/find-provenance.js';
import { registerInsights } from './tools/insights.js';
import { registerGetThread } from './tools/get-thread.js';
import { registerLinkAtoms } from './tools/link-atoms.js';
import { registerListThreads } from './tools/list-threads.js';
import { registerPollInbox } from './tools/poll-inbox.js';
import { registerReadInbox } from './tools/read-inbox.js';
import { registerRecent } from './tools/recent.js';
import { registerRemember } from './tools/remember.js';
import { registerSearch } from './tools/search.js';
import { registerSendMessage } from './tools/send-message.js';

export const SERVER_NAME = 'brain';

export interface CreateMcpServerOptions {
  /** Who calls: the stdio server's --agent, or the HTTP session's token agent. Never an argument. */
  agent: string;
  /**
   * Notices new messages for subscriptions. Share one per process (`brain serve` does); when absent
   * the server makes its own and stops it when it closes.
   */
  watcher?: BrainWatcher;
  log?: Logger;
  /** The embedder for search queries, once the background has made it (see mcp/embedding.ts). */
  embedder?: () => Embedder | undefined;
  /** Folders whose files send_message may attach by path (BRAIN_ATTACH_ROOTS); none by default. */
  attachRoots?: readonly string[];
  /** The owner's time zone, in which a query's time words are read; undefined: the system's. */
  timeZone?: string | undefined;
}

const INSTRUCTIONS = `The brain: messages between agents in threads, plus shared memory (stm, atoms) that points back to the messages it came from. You act as one agent; tools never take your name. Check poll_inbox, then read_inbox; reply with send_message (reply_to); record what matters with remember or create_atom and source_message_id; search before asking.`;

/** One MCP server for one caller. Connect it to a transport; closing it releases its watcher. */
export function createMcpServer(brain: Brain, options: CreateMcpServerOptions): McpServer {
  const parsed = zodField(agentName(), z).safeParse(options.agent);
  if (!parsed.success)
    throw new BrainError('INVALID_INPUT', `agent: ${parsed.error.issues[0]?.message}`);
  const log = options.log ?? silentLogger;
  // Registered as the session starts, so broadcasts sent meanwhile reach it; never waiting for
  // the write lock, so a session opened while another process writes starts at once (its first
  // write registers it then). Tools that only read never write.
  let touched = brain.touchAgent(options.agent, { wait: false });
  const ctx: ToolContext = {
    brain,
    log,
    caller: options.agent,
    embedder: options.embedder ?? (() => undefined),
    attachRoots: options.attachRoots ?? [],
    timeZone: options.timeZone,
    agent() {
      if (!touched) {
        brain.touchAgent(options.agent);
        touched = true;
      }
      return options.agent;
    },
  };

  const server = new McpServer(
    { name: SERVER_NAME, title: 'brain', version: packageVersion() },
    { instructions: INSTRUCTIONS },
  );
  registerSendMessage(server, ctx);
  registerPollInbox(server, ctx);
  registerReadInbox(server, ctx);
  registerAckMessage(server, ctx);
  registerGetThread(server, ctx);
  registerListThreads(server, ctx);
  registerRemember(server, ctx);
  registerCreateAtom(server, ctx);
  registerLinkAtoms(server, ctx);
  registerSearch(server, ctx);
  registerFindProvenance(server, ctx);
  registerInsights(server, ctx);
  registerRecent(server, ctx);
  registerResources(server, ctx);
  registerAttachmentResource(server, ctx);
  registerPrompts(server, ctx);

  const own = !options.watcher;
  const watcher = options.watcher ?? watchBrain(brain, { onError: watchError(log) });
  const unsubscribe = registerSubscriptions(server, ctx, watcher, log);
  server.server.onclose = () => {
    unsubscribe();
    if (own) watcher.close();
  };
  return server;
}

export function watchError(log: Logger) {
  return (err: unknown) => log.warn(`watching for new messages failed: ${(err as Error).message}`);
}
