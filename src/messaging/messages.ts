import { z } from 'zod';
import type { BrainContext } from '../context.js';
import { messageKey } from '../ids.js';
import {
  PRIORITIES,
  agentName,
  isoTime,
  jsonObject,
  lookupKey,
  messageId,
  parseInput,
  text,
  threadId,
} from '../validation.js';
import { runSend, type SendArgs, type SendResult } from './send-run.js';
import { threadMessageByKey, type ThreadMessage } from './thread-run.js';
import {
  MESSAGE_SELECT,
  toMessageRecord,
  type MessageRecord,
  type MessageRow,
} from './message-rows.js';

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

const sendInput = z.strictObject({
  from: agentName,
  to: agentName.nullish(),
  subject: text(500).optional(),
  body: text(Number.MAX_SAFE_INTEGER).refine((s) => s.trim().length > 0, 'must not be empty'),
  priority: z.enum(PRIORITIES).default('normal'),
  thread: threadId.optional(),
  reply_to: messageId.optional(),
  metadata: jsonObject.optional(),
  tags: z.array(text(64).min(1)).max(32).optional(),
  /** When the message was said; defaults to now. For importers and replays. */
  at: isoTime.optional(),
});
export type SendInput = z.input<typeof sendInput>;

export type { SendArgs, SendResult } from './send-run.js';

export function sendMessage(ctx: BrainContext, input: SendInput): SendResult {
  return runSend(ctx, parseSendInput(input));
}

/** The input checked by the schema: defaults applied, or a BrainError naming the field. */
export function parseSendInput(input: SendInput): SendArgs {
  return parseInput(sendInput, input);
}
