// Provenance: from knowledge to the message it came from, or from a message to what was derived
// from it. Free of zod (the input kit checks), so a one-shot `brain provenance` loads this
// without it.
import { attachmentsOf, type AttachmentInfo } from '../attachments/store.js';
import { millisOf } from '../clock.js';
import type { BrainContext } from '../context.js';
import { BrainError } from '../errors.js';
import { check } from '../input/check.js';
import { provenanceInput, type ProvenanceInput } from './input.js';

export { provenanceInput, type ProvenanceArgs, type ProvenanceInput } from './input.js';
import { idKind, messageKey } from '../ids.js';
import {
  MESSAGE_SELECT,
  toMessageRecord,
  type MessageRecord,
  type MessageRow,
} from '../messaging/message-rows.js';
import { getThread, type ThreadRecord } from '../messaging/threads.js';
import { ATOM_SELECT, toAtomRecord, type AtomRecord, type AtomRow } from './atom-rows.js';
import { STM_SELECT, toStmRecord, type StmRecord, type StmRow } from './stm-rows.js';

export interface Provenance {
  id: string;
  type: 'message' | 'stm' | 'atom';
  /** The knowledge asked about; absent when asked about a message. */
  knowledge?: { type: 'stm'; record: StmRecord } | { type: 'atom'; record: AtomRecord };
  /**
   * The source message of the knowledge, or the message asked about; null when knowledge has no
   * source. `attachments`: the files it carries, when it has some.
   */
  message: (MessageRecord & { attachments?: AttachmentInfo[] }) | null;
  thread: ThreadRecord | null;
  /** Messages around `message` in its thread, in order, `message` included. */
  context: MessageRecord[];
  /** Knowledge derived from `message`. */
  derived: { stm: StmRecord[]; atoms: AtomRecord[] };
}

/** From knowledge to the message that produced it (and its thread), or from a message to what was derived from it. */
export function findProvenance(ctx: BrainContext, input: ProvenanceInput): Provenance {
  const args = check(provenanceInput, input);
  const kind = idKind(args.id) as 'message' | 'stm' | 'atom';
  let knowledge: Provenance['knowledge'];
  let messageId: string | null;
  if (kind === 'stm') {
    const row = ctx.q.get<[string], StmRow>(`${STM_SELECT} WHERE s.uid = ?`).get(args.id);
    const record = row && toStmRecord(row);
    if (!record) throw new BrainError('NOT_FOUND', `id: no STM entry ${args.id}`);
    knowledge = { type: 'stm', record };
    messageId = record.source_message_id;
  } else if (kind === 'atom') {
    const row = ctx.q.get<[string], AtomRow>(`${ATOM_SELECT} WHERE t.uid = ?`).get(args.id);
    const record = row && toAtomRecord(row);
    if (!record) throw new BrainError('NOT_FOUND', `id: no atom ${args.id}`);
    knowledge = { type: 'atom', record };
    messageId = record.source_message_id;
  } else {
    messageId = args.id;
  }

  const empty = { message: null, thread: null, context: [], derived: { stm: [], atoms: [] } };
  if (!messageId) return { id: args.id, type: kind, ...(knowledge ? { knowledge } : {}), ...empty };
  const row = ctx.q
    .get<[number], MessageRow>(`${MESSAGE_SELECT} WHERE m.uid = ?`)
    .get(messageKey(messageId)!);
  if (!row) throw new BrainError('NOT_FOUND', `id: no message ${messageId}`);
  const files = attachmentsOf(ctx, [row.rowid]).get(row.rowid);
  const message = { ...toMessageRecord(row), ...(files ? { attachments: files } : {}) };
  return {
    id: args.id,
    type: kind,
    ...(knowledge ? { knowledge } : {}),
    message,
    thread: getThread(ctx, message.thread_id) ?? null,
    context: threadContext(ctx, row, args.context),
    derived: derivedFrom(ctx, row.rowid),
  };
}

function threadContext(ctx: BrainContext, row: MessageRow, n: number): MessageRecord[] {
  if (n === 0) return [toMessageRecord(row)];
  const params = { rowid: row.rowid, at: millisOf(row.created_at), n };
  const before = ctx.q
    .get<[typeof params], MessageRow>(
      `${MESSAGE_SELECT} WHERE m.thread_id = (SELECT thread_id FROM messages WHERE id = @rowid)
         AND (m.created_at < @at OR (m.created_at = @at AND m.id < @rowid))
       ORDER BY m.created_at DESC, m.id DESC LIMIT @n`,
    )
    .all(params);
  const after = ctx.q
    .get<[typeof params], MessageRow>(
      `${MESSAGE_SELECT} WHERE m.thread_id = (SELECT thread_id FROM messages WHERE id = @rowid)
         AND (m.created_at > @at OR (m.created_at = @at AND m.id > @rowid))
       ORDER BY m.created_at, m.id LIMIT @n`,
    )
    .all(params);
  return [...before.reverse(), row, ...after].map(toMessageRecord);
}

/** STM entries and atoms whose source is the given message row. */
export function derivedFrom(ctx: BrainContext, messageRowId: number): Provenance['derived'] {
  const stm = ctx.q
    .get<[number], Parameters<typeof toStmRecord>[0]>(
      `${STM_SELECT} WHERE s.id IN (SELECT stm_id FROM stm_sources WHERE message_id = ?) ORDER BY s.id`,
    )
    .all(messageRowId)
    .map(toStmRecord);
  const atoms = ctx.q
    .get<[number], Parameters<typeof toAtomRecord>[0]>(
      `${ATOM_SELECT} WHERE t.source_message_id = ? ORDER BY t.id`,
    )
    .all(messageRowId)
    .map(toAtomRecord);
  return { stm, atoms };
}
