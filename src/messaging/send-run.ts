// Sending, on input already checked: free of zod, so a one-shot `brain send` need not load it.
import { isoNow, millisOf } from '../clock.js';
import type { BrainContext } from '../context.js';
import { BrainError } from '../errors.js';
import { messageKey, newId, threadIdSql, threadKey } from '../ids.js';
import type { Priority } from '../vocabulary.js';
import { excerpt } from './message-rows.js';
import { addThreadTags, insertMessage, insertThread, writeAgent } from './store.js';

/** A send's input once checked: defaults applied, `at` normalised to ISO 8601 with ms. */
export interface SendArgs {
  from: string;
  to?: string | null | undefined;
  subject?: string | undefined;
  body: string;
  priority: Priority;
  thread?: string | undefined;
  reply_to?: string | undefined;
  metadata?: Record<string, unknown> | undefined;
  tags?: string[] | undefined;
  at?: string | undefined;
}

export interface SendResult {
  id: string;
  thread_id: string;
  created_at: string;
  recipients: number;
}

/** Send a message whose input is already checked (by the schema in messages.ts, or quick-input.ts). */
export function runSend(ctx: BrainContext, args: SendArgs): SendResult {
  const bytes = Buffer.byteLength(args.body, 'utf8');
  if (bytes > ctx.limits.maxBodyBytes) {
    throw new BrainError(
      'INVALID_INPUT',
      `body: is ${bytes} bytes; the limit is ${ctx.limits.maxBodyBytes} (BRAIN_MAX_BODY_BYTES)`,
    );
  }
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
    return { id: uid, thread_id: threadUid, created_at: createdAt, recipients: written.recipients };
  });
  return tx.immediate();
}
