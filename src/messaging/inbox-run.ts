// Reading an inbox, and the acks of messages, on input already checked: free of zod, so a
// one-shot `brain read` or `brain thread` need not load it.
import { isoSql } from '../clock.js';
import type { BrainContext } from '../context.js';
import { messageIdSql } from '../ids.js';
import {
  MESSAGE_SELECT,
  toMessageRecord,
  type MessageRecord,
  type MessageRow,
} from './message-rows.js';
import { agentRowId } from './row-ids.js';
import { markRead } from './store.js';

/** An inbox read's input once checked. */
export interface InboxArgs {
  agent: string;
  limit: number;
}

const UNREAD_SQL = `${MESSAGE_SELECT}
  WHERE m.id IN (SELECT message_id FROM deliveries WHERE agent_id = ? AND read_at IS NULL ORDER BY message_id LIMIT ?)
  ORDER BY m.id`;

/** The agent's unread messages, oldest first, without marking them read. */
export function runPeek(ctx: BrainContext, args: InboxArgs): MessageRecord[] {
  const agentId = agentRowId(ctx, args.agent);
  if (agentId === undefined) return [];
  return ctx.q
    .get<[number, number], MessageRow>(UNREAD_SQL)
    .all(agentId, args.limit)
    .map(toMessageRecord);
}

/** Return the agent's unread messages and mark exactly those read, in one transaction. */
export function runRead(ctx: BrainContext, args: InboxArgs): MessageRecord[] {
  const tx = ctx.db.transaction((): MessageRecord[] => {
    const agentId = agentRowId(ctx, args.agent);
    if (agentId === undefined) return [];
    const rows = ctx.q.get<[number, number], MessageRow>(UNREAD_SQL).all(agentId, args.limit);
    const now = ctx.clock().getTime();
    for (const row of rows) markRead(ctx, row.rowid, agentId, now);
    return rows.map(toMessageRecord);
  });
  return tx.immediate();
}

export interface AckRecord {
  message_id: string;
  agent: string;
  body: string | null;
  created_at: string;
}

/** Acks of the given message rows, grouped by message row id. */
export function acksFor(ctx: BrainContext, messageRowIds: number[]): Map<number, AckRecord[]> {
  const out = new Map<number, AckRecord[]>();
  if (messageRowIds.length === 0) return out;
  const stmt = ctx.q.get<
    [number],
    { message_id: number; uid: string; agent: string; body: string | null; created_at: string }
  >(
    `SELECT a.message_id, ${messageIdSql('m.uid')} AS uid, ag.name AS agent, a.body,
            ${isoSql('a.created_at')} AS created_at
     FROM acks a JOIN messages m ON m.id = a.message_id JOIN agents ag ON ag.id = a.agent_id
     WHERE a.message_id = ? ORDER BY a.created_at, ag.name`,
  );
  for (const id of messageRowIds) {
    const rows = stmt.all(id);
    if (rows.length) {
      out.set(
        id,
        rows.map((r) => ({
          message_id: r.uid,
          agent: r.agent,
          body: r.body,
          created_at: r.created_at,
        })),
      );
    }
  }
  return out;
}
