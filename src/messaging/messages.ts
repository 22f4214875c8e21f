// Sending and getting messages. Free of zod (the input kit checks), so a one-shot `brain send`
// loads this without it.
import { isoNow, millisOf } from '../clock.js';
import type { BrainContext } from '../context.js';
import { BrainError } from '../errors.js';
import { check, object, type InputOf, type OutputOf } from '../input/check.js';
import {
  agentName,
  id,
  isoTime,
  list,
  lookupKey,
  oneOf,
  record,
  text,
  WORDS,
} from '../input/fields.js';
import { messageKey, newId, threadIdSql, threadKey } from '../ids.js';
import { PRIORITIES } from '../vocabulary.js';
import {
  MESSAGE_SELECT,
  excerpt,
  toMessageRecord,
  type MessageRecord,
  type MessageRow,
} from './message-rows.js';
import { addThreadTags, insertMessage, insertThread, writeAgent } from './store.js';
import { writeAttachments, type PreparedAttachment } from '../attachments/store.js';
import { threadMessageByKey, type ThreadMessage } from './threads.js';

export {
  MESSAGE_SELECT,
  excerpt,
  toMessageRecord,
  type MessageRecord,
  type MessageRow,
} from './message-rows.js';

export function getMessage(ctx: BrainContext, id: string): MessageRecord | undefined {
  const key = messageKey(lookupKey(id, 'id'));
  if (key === undefined) return undefined;
  const row = ctx.q.get<[number], MessageRow>(`${MESSAGE_SELECT} WHERE m.uid = ?`).get(key);
  return row && toMessageRecord(row);
}

/** A message with its receipts and acks (as in a thread's history), or undefined. */
export function getThreadMessage(ctx: BrainContext, id: string): ThreadMessage | undefined {
  const key = messageKey(lookupKey(id, 'id'));
  return key === undefined ? undefined : threadMessageByKey(ctx, key);
}

/** The row id of a message, by its public id. */
export function messageRowId(ctx: BrainContext, id: string): number | undefined {
  const key = messageKey(id);
  if (key === undefined) return undefined;
  return ctx.q.get<[number], { id: number }>(`SELECT id FROM messages WHERE uid = ?`).get(key)?.id;
}

export const sendInput = object({
  from: agentName().describe('Sending agent'),
  to: agentName().nullish().describe('Recipient agent; omit to broadcast'),
  subject: text(500).optional().describe('Subject; a new thread takes it'),
  body: text(Number.MAX_SAFE_INTEGER)
    .refine((s) => s.trim().length > 0, WORDS.empty)
    .describe('The message'),
  priority: oneOf(PRIORITIES).default('normal').describe('How urgent'),
  thread: id('thread').optional().describe('Thread to continue (thr_…)'),
  reply_to: id('message').optional().describe('Message this answers (syn_…); joins its thread'),
  metadata: record().optional().describe('A JSON object stored with the message'),
  tags: list(text(64, { min: 1 }), { max: 32 })
    .optional()
    .describe('Tags for the thread'),
  /** For importers and replays. */
  at: isoTime().optional().describe('When it was said (ISO 8601); default now'),
});
export type SendInput = InputOf<typeof sendInput>;
/** A send's input once checked: defaults applied, `at` normalised to ISO 8601 with ms. */
export type SendArgs = OutputOf<typeof sendInput>;

export interface SendResult {
  id: string;
  thread_id: string;
  created_at: string;
  recipients: number;
}

/** A send's input checked, the body's size included. */
export function checkSend(ctx: BrainContext, input: SendInput): SendArgs {
  const args = check(sendInput, input);
  const bytes = Buffer.byteLength(args.body, 'utf8');
  if (bytes > ctx.limits.maxBodyBytes) {
    throw new BrainError(
      'INVALID_INPUT',
      `body: is ${bytes} bytes; the limit is ${ctx.limits.maxBodyBytes} (BRAIN_MAX_BODY_BYTES)`,
    );
  }
  return args;
}

/**
 * Send a message, with the files `prepareAttachments` made ready: the message and its files are
 * written in one transaction, or neither is.
 */
export function sendMessage(
  ctx: BrainContext,
  input: SendInput,
  attachments: readonly PreparedAttachment[] = [],
): SendResult {
  const args = checkSend(ctx, input);
  const createdAt = args.at ?? isoNow(ctx.clock);
  const createdMs = millisOf(createdAt);
  const uid = newId('message');

  const tx = ctx.db.transaction((): SendResult => {
    const now = ctx.clock().getTime();
    const fromId = writeAgent(ctx, { name: args.from, at: now, seen: true }).id;
    const toId = args.to ? writeAgent(ctx, { name: args.to, at: now }).id : null;

    let parent: { id: number; thread_id: number } | undefined;
    if (args.reply_to) {
      parent = ctx.q
        .get<[number], { id: number; thread_id: number }>(
          `SELECT id, thread_id FROM messages WHERE uid = ?`,
        )
        .get(messageKey(args.reply_to)!);
      if (!parent) throw new BrainError('NOT_FOUND', `reply_to: no message ${args.reply_to}`);
    }

    let threadRowId: number;
    let threadUid: string;
    if (args.thread) {
      const thread = ctx.q
        .get<[Buffer], { id: number; status: string }>(
          `SELECT id, status FROM threads WHERE uid = ?`,
        )
        .get(threadKey(args.thread)!);
      if (!thread) throw new BrainError('NOT_FOUND', `thread: no thread ${args.thread}`);
      if (thread.status === 'closed')
        throw new BrainError('CONFLICT', `thread ${args.thread} is closed`);
      if (parent && parent.thread_id !== thread.id) {
        throw new BrainError(
          'INVALID_INPUT',
          `reply_to: ${args.reply_to} is not in thread ${args.thread}`,
        );
      }
      threadRowId = thread.id;
      threadUid = args.thread;
    } else if (parent) {
      threadRowId = parent.thread_id;
      threadUid = ctx.q
        .get<[number], { uid: string }>(
          `SELECT ${threadIdSql('uid')} AS uid FROM threads WHERE id = ?`,
        )
        .get(threadRowId)!.uid;
    } else {
      threadUid = newId('thread');
      threadRowId = insertThread(ctx, {
        uid: threadUid,
        subject: args.subject ?? excerpt(args.body),
        created_by: fromId,
        created_at: createdMs,
      }).id;
    }
    addThreadTags(ctx, threadRowId, args.tags ?? []);

    const written = insertMessage(ctx, {
      uid,
      thread_id: threadRowId,
      from_agent: fromId,
      to_agent: toId,
      reply_to: parent?.id ?? null,
      priority: args.priority,
      subject: args.subject ?? null,
      body: args.body,
      metadata: args.metadata ?? null,
      created_at: createdMs,
      recipients: toId === null ? 'everyone' : [{ agent_id: toId, read_at: null }],
      reopen: true,
    });
    // Ids are 48 random bits: a clash is all but impossible, and must not pass for a send.
    if (!written.added) throw new BrainError('CONFLICT', `id: ${uid} exists; send again`);
    writeAttachments(ctx, written.rowid, attachments, now);
    return { id: uid, thread_id: threadUid, created_at: createdAt, recipients: written.recipients };
  });
  return tx.immediate();
}
