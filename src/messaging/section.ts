import { getAgent, listAgents, updateAgent, type UpdateAgentInput } from './agents.js';
import {
  ackMessage,
  markMessageRead,
  peekInbox,
  readInbox,
  type AckInput,
  type MarkReadInput,
  type InboxInput,
} from './inbox.js';
import { getMessage, getThreadMessage, sendMessage, type SendInput } from './messages.js';
import { poll } from './poll.js';
import {
  getThread,
  listThreads,
  setThreadStatus,
  tagThread,
  threadHistory,
  type HistoryInput,
  type ListThreadsInput,
  type TagThreadInput,
} from './threads.js';
import {
  agentActivity,
  inboxView,
  type AgentActivityInput,
  type InboxViewInput,
} from './overview.js';
import type { ThreadStatus } from '../validation.js';

import type { BrainContext } from '../context.js';

/** Agents, messages and threads: who said what to whom, read and acknowledged. */
export interface MessagesSection {
  getAgent: (name: string) => ReturnType<typeof getAgent>;
  listAgents: () => ReturnType<typeof listAgents>;
  updateAgent: (input: UpdateAgentInput) => ReturnType<typeof updateAgent>;
  send: (input: SendInput) => ReturnType<typeof sendMessage>;
  getMessage: (id: string) => ReturnType<typeof getMessage>;
  /** A message with its receipts and acks, as a thread's history shows it. */
  getThreadMessage: (id: string) => ReturnType<typeof getThreadMessage>;
  poll: (agent: string) => ReturnType<typeof poll>;
  peek: (input: InboxInput) => ReturnType<typeof peekInbox>;
  read: (input: InboxInput) => ReturnType<typeof readInbox>;
  ack: (input: AckInput) => ReturnType<typeof ackMessage>;
  /** Mark one message read for one agent; whether it was unread for it. */
  markRead: (input: MarkReadInput) => boolean;
  thread: (input: HistoryInput) => ReturnType<typeof threadHistory>;
  getThread: (id: string) => ReturnType<typeof getThread>;
  threads: (input?: ListThreadsInput) => ReturnType<typeof listThreads>;
  setThreadStatus: (id: string, status: ThreadStatus) => ReturnType<typeof setThreadStatus>;
  tagThread: (input: TagThreadInput) => ReturnType<typeof tagThread>;
  /** Agents with unread, sent and received counts and their latest messages (read-only). */
  agentActivity: (input?: AgentActivityInput) => ReturnType<typeof agentActivity>;
  /** An agent's unread and read messages, marking nothing read. */
  inboxView: (input: InboxViewInput) => ReturnType<typeof inboxView>;
}

export function messagesSection(ctx: BrainContext, _dbPath: string): MessagesSection {
  return {
    getAgent: (name) => getAgent(ctx, name),
    listAgents: () => listAgents(ctx),
    updateAgent: (input) => updateAgent(ctx, input),
    send: (input) => sendMessage(ctx, input),
    getMessage: (id) => getMessage(ctx, id),
    getThreadMessage: (id) => getThreadMessage(ctx, id),
    poll: (agent) => poll(ctx, agent),
    peek: (input) => peekInbox(ctx, input),
    read: (input) => readInbox(ctx, input),
    ack: (input) => ackMessage(ctx, input),
    markRead: (input) => markMessageRead(ctx, input),
    thread: (input) => threadHistory(ctx, input),
    getThread: (id) => getThread(ctx, id),
    threads: (input) => listThreads(ctx, input),
    setThreadStatus: (id, status) => setThreadStatus(ctx, id, status),
    tagThread: (input) => tagThread(ctx, input),
    agentActivity: (input) => agentActivity(ctx, input),
    inboxView: (input) => inboxView(ctx, input),
  };
}
