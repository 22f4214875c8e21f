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
import {
  getMessage,
  checkSend,
  getThreadMessage,
  sendMessage,
  type SendInput,
  type SendResult,
} from './messages.js';
import {
  attachmentBytes,
  attachmentsOf,
  getAttachment,
  prepareAttachments,
  type AttachmentInfo,
  type AttachmentInput,
  type PreparedAttachment,
  type StoredAttachment,
} from '../attachments/store.js';
import { readAttachmentFile } from '../attachments/paths.js';
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
  /** Send a message; with files, `attach` makes them ready first. */
  send: (input: SendInput, attachments?: readonly PreparedAttachment[]) => SendResult;
  /** Check, hash, sniff and read files for a send (large ones are written beside the brain). */
  attach: (files: readonly AttachmentInput[]) => Promise<PreparedAttachment[]>;
  /** Send a message carrying these files (bytes, name, claimed type): `attach`, then `send`. */
  sendFiles: (input: SendInput, files: readonly AttachmentInput[]) => Promise<SendResult>;
  /**
   * Read a file to attach by its path: under `roots` when given (an MCP client's paths), any path
   * otherwise (the owner's command line). Regular files only, within the size limit.
   */
  readAttachmentFile: (
    path: string,
    options?: { roots?: readonly string[] | undefined; field?: string },
  ) => AttachmentInput;
  /** The largest file a message may carry (BRAIN_MAX_ATTACHMENT_BYTES): a channel checks it first. */
  readonly maxAttachmentBytes: number;
  /** A stored file by its sha256 or a prefix of it (8+ hex digits), or undefined. */
  getAttachment: (ref: string) => StoredAttachment | undefined;
  /** A stored file's bytes, by its full sha256. */
  attachmentBytes: (sha256: string) => Buffer;
  /** The files of messages, by their row ids (as records give them). */
  attachmentsOf: (rowids: readonly number[]) => Map<number, AttachmentInfo[]>;
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

export function messagesSection(ctx: BrainContext, dbPath: string): MessagesSection {
  return {
    attach: (files) => prepareAttachments(ctx, dbPath, files),
    sendFiles: async (input, files) => {
      // The message is checked before any file is read or written.
      checkSend(ctx, input);
      return sendMessage(ctx, input, await prepareAttachments(ctx, dbPath, files));
    },
    readAttachmentFile: (path, options = {}) =>
      readAttachmentFile(path, {
        roots: options.roots,
        field: options.field ?? 'attach',
        maxBytes: ctx.limits.maxAttachmentBytes,
      }),
    maxAttachmentBytes: ctx.limits.maxAttachmentBytes,
    getAttachment: (ref) => getAttachment(ctx, ref),
    attachmentBytes: (sha256) => attachmentBytes(ctx, dbPath, sha256),
    attachmentsOf: (rowids) => attachmentsOf(ctx, rowids),
    getAgent: (name) => getAgent(ctx, name),
    listAgents: () => listAgents(ctx),
    updateAgent: (input) => updateAgent(ctx, input),
    send: (input, attachments) => sendMessage(ctx, input, attachments),
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
