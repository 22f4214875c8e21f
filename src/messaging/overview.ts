import { isoOfMillis, isoSql } from '../clock.js';
import type { BrainContext } from '../context.js';
import { messageIdSql, messageKey } from '../ids.js';
import { ATOM_SELECT, toAtomRecord, type AtomRow } from '../knowledge/atom-rows.js';
import type { Provenance } from '../knowledge/provenance.js';
import { STM_SELECT, toStmRecord, type StmRow } from '../knowledge/stm-rows.js';
import { check, object, type InputOf } from '../input/check.js';
import { agentName, count, id, list } from '../input/fields.js';
import {
  MESSAGE_SELECT,
  toMessageRecord,
  type MessageRecord,
  type MessageRow,
} from './messages.js';
import { agentRowId } from './row-ids.js';

/*
 * Read-only views for people looking at the brain (`brain ui`): who is active, what an inbox
 * holds, what was learned from each message of a page. None of them marks anything read.
 */

export interface AgentActivity {
  name: string;
  display_name: string | null;
  last_seen_at: string;
  /** All its unread messages (from the partial index of unread deliveries). */
  unread: number;
  /** Messages it sent, over all history. */
  sent: number;
  /** Messages delivered to it (a broadcast counts once per recipient), over all history. */
  received: number;
  /** Its latest messages, newest first. */
  latest: MessageRecord[];
}

export const activityInput = object({
  latest: count(0, 20).default(3).describe("How many of each agent's latest messages"),
});
export type AgentActivityInput = InputOf<typeof activityInput>;

/**
 * Every agent with its unread count, its messages sent and received over all history, and its
 * latest messages. The counts are rows kept by triggers (migration 0016), the latest messages one
 * seek each in the index by sender: the cost follows the number of agents, not of messages.
 */
export function agentActivity(ctx: BrainContext, input: AgentActivityInput = {}): AgentActivity[] {
  const args = check(activityInput, input);
  const agents = ctx.q
    .get<
      [],
      {
        id: number;
        name: string;
        display_name: string | null;
        last_seen_at: string;
        sent: number | null;
        received: number | null;
      }
    >(
      `SELECT a.id, a.name, a.display_name, ${isoSql('a.last_seen_at')} AS last_seen_at, c.sent, c.received
       FROM agents a LEFT JOIN agent_counts c ON c.agent_id = a.id ORDER BY a.name`,
    )
    .all();
  const unread = new Map(
    ctx.q
      .get<[], { agent: number; n: number }>(
        `SELECT agent_id AS agent, count(*) AS n FROM deliveries WHERE read_at IS NULL GROUP BY agent_id`,
      )
      .all()
      .map((r) => [r.agent, r.n]),
  );
  const latestOf = ctx.q.get<[number, number], MessageRow>(
    `${MESSAGE_SELECT} WHERE m.id IN
       (SELECT id FROM messages WHERE from_agent = ? ORDER BY created_at DESC, id DESC LIMIT ?)
     ORDER BY m.created_at DESC, m.id DESC`,
  );
  return agents.map((a) => ({
    name: a.name,
    display_name: a.display_name,
    last_seen_at: a.last_seen_at,
    unread: unread.get(a.id) ?? 0,
    sent: a.sent ?? 0,
    received: a.received ?? 0,
    latest: args.latest > 0 ? latestOf.all(a.id, args.latest).map(toMessageRecord) : [],
  }));
}

export interface InboxEntry extends MessageRecord {
  /** When the agent read it; null while unread. */
  read_at: string | null;
}

export interface InboxView {
  agent: string;
  unread: InboxEntry[];
  /** Total unread, beyond the page shown. */
  unread_count: number;
  /** Messages already read, newest first. */
  read: InboxEntry[];
}

export const inboxViewInput = object({
  agent: agentName().describe('Whose inbox'),
  limit: count(1, 500).default(50).describe('At most this many unread, and this many read'),
});
export type InboxViewInput = InputOf<typeof inboxViewInput>;

/**
 * An agent's inbox as a person sees it: the unread messages (oldest first) and the latest read
 * ones (newest first), without marking anything read. An unknown agent has an empty inbox.
 */
export function inboxView(ctx: BrainContext, input: InboxViewInput): InboxView {
  const args = check(inboxViewInput, input);
  const agentId = agentRowId(ctx, args.agent);
  if (agentId === undefined) return { agent: args.agent, unread: [], unread_count: 0, read: [] };
  const entries = (sql: string) =>
    ctx.q
      .get<[{ agent: number; limit: number }], MessageRow & { read_at: number | null }>(sql)
      .all({ agent: agentId, limit: args.limit })
      .map((r): InboxEntry => ({ ...toMessageRecord(r), read_at: isoOfMillis(r.read_at) }));
  const select = MESSAGE_SELECT.replace('SELECT', 'SELECT d.read_at,').concat(
    ` JOIN deliveries d ON d.message_id = m.id`,
  );
  const unread = entries(
    `${select} WHERE d.agent_id = @agent AND d.read_at IS NULL AND m.id IN
       (SELECT message_id FROM deliveries WHERE agent_id = @agent AND read_at IS NULL ORDER BY message_id LIMIT @limit)
     ORDER BY m.id`,
  );
  const read = entries(
    `${select} WHERE d.agent_id = @agent AND d.read_at IS NOT NULL AND m.id IN
       (SELECT message_id FROM deliveries WHERE agent_id = @agent AND read_at IS NOT NULL ORDER BY message_id DESC LIMIT @limit)
     ORDER BY m.id DESC`,
  );
  const unreadCount =
    ctx.q
      .get<[number], { n: number }>(
        `SELECT count(*) AS n FROM deliveries WHERE agent_id = ? AND read_at IS NULL`,
      )
      .get(agentId)?.n ?? 0;
  return { agent: args.agent, unread, unread_count: unreadCount, read };
}

const derivedInput = object({ ids: list(id('message'), { max: 1000 }) });

/** For each given message, the STM entries and atoms derived from it (only messages with some). */
export function derivedFromMessages(
  ctx: BrainContext,
  ids: string[],
): Map<string, Provenance['derived']> {
  const keys = check(derivedInput, { ids })
    .ids.map(messageKey)
    .filter((k): k is number => k !== undefined);
  const out = new Map<string, Provenance['derived']>();
  if (keys.length === 0) return out;
  // Three statements for the whole page rather than two per message.
  const rows = ctx.q
    .get<[string], { rowid: number; id: string }>(
      `SELECT id AS rowid, ${messageIdSql('uid')} AS id FROM messages
       WHERE uid IN (SELECT value FROM json_each(?))`,
    )
    .all(JSON.stringify(keys));
  const idOf = new Map(rows.map((r) => [r.rowid, r.id]));
  const slot = (rowid: number) => {
    const id = idOf.get(rowid)!;
    let derived = out.get(id);
    if (!derived) out.set(id, (derived = { stm: [], atoms: [] }));
    return derived;
  };
  const rowids = JSON.stringify([...idOf.keys()]);
  const stm = ctx.q
    .get<[string], StmRow & { source_rowid: number }>(
      `${STM_SELECT.replace('SELECT', 'SELECT src.message_id AS source_rowid,')}
       JOIN stm_sources src ON src.stm_id = s.id
       WHERE src.message_id IN (SELECT value FROM json_each(?)) ORDER BY s.id`,
    )
    .all(rowids);
  for (const { source_rowid, ...row } of stm) slot(source_rowid).stm.push(toStmRecord(row));
  const atoms = ctx.q
    .get<[string], AtomRow & { source_rowid: number }>(
      `${ATOM_SELECT.replace('SELECT', 'SELECT t.source_message_id AS source_rowid,')}
       WHERE t.source_message_id IN (SELECT value FROM json_each(?)) ORDER BY t.id`,
    )
    .all(rowids);
  for (const { source_rowid, ...row } of atoms) slot(source_rowid).atoms.push(toAtomRecord(row));
  return out;
}
