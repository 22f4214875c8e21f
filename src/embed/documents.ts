import { createHash } from 'node:crypto';
import type { BrainContext } from '../context.js';
import type { SearchType } from '../validation.js';

/** The text embedded for one item, and the values search filters on (copied into the vector index). */
export interface EmbedDocument {
  type: SearchType;
  rowid: number;
  text: string;
  hash: string;
  createdMs: number;
  agentId: number;
  /** The thread of a message, or of an STM entry's/atom's source message; 0 when none. */
  threadId: number;
  /** When an STM entry expires; far in the future for everything else. */
  expiresMs: number;
}

export const NEVER_MS = 253_402_300_799_000; // 9999-12-31T23:59:59Z

/** Longest text sent to a model; nomic-embed-text reads 8192 tokens, and a vector of a book says little. */
const MAX_CHARS = 8_000;
/** How much of the message before it a message's text carries. */
const PREVIOUS_CHARS = 300;

function clip(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

export function contentHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}

interface MessageDocRow {
  subject: string;
  body: string;
  sender: string;
  previous: string;
  date: string;
  created_ms: number;
  thread_id: number;
  from_agent: number;
}

/** The words search indexes, and the message it follows (view `messages_context`, migration 0003). */
const MESSAGE_DOC_SQL = `
  SELECT c.subject, c.body, c.sender, c.previous, c.date, m.created_at AS created_ms, m.thread_id,
         m.from_agent
  FROM messages_context c JOIN messages m ON m.id = c.id
  WHERE c.id = ?`;

/**
 * A message is read in its context: the thread's subject, who said it to whom and when, and the
 * message it follows (a reply such as "yes, last week" means little alone).
 */
function messageDocument(ctx: BrainContext, rowid: number): EmbedDocument | undefined {
  const r = ctx.q.get<[number], MessageDocRow>(MESSAGE_DOC_SQL).get(rowid);
  if (!r) return undefined;
  const lines = [r.subject, `${r.date}, ${r.sender}:`, r.body];
  if (r.previous) lines.push(`(after: ${clip(r.previous, PREVIOUS_CHARS)})`);
  return finish('message', rowid, lines.join('\n'), r.created_ms, r.from_agent, r.thread_id, null);
}

interface KnowledgeDocRow {
  text: string;
  created_at: number;
  agent_id: number;
  thread_id: number | null;
  expires_at: number | null;
}

const STM_DOC_SQL = `
  SELECT s.content || CASE WHEN c.list IS NULL THEN '' ELSE char(10) || '(' || c.list || ')' END AS text,
         s.created_at, s.agent_id, m.thread_id, s.expires_at
  FROM stm s
  LEFT JOIN messages m ON m.id = s.source_message_id
  LEFT JOIN (SELECT stm_id, group_concat(category, ', ') AS list FROM stm_categories WHERE stm_id = @id) c ON c.stm_id = s.id
  WHERE s.id = @id`;

const ATOM_DOC_SQL = `
  SELECT a.subject || ': ' || a.action || ' → ' || a.outcome
         || CASE WHEN a.consequences = '' THEN '' ELSE char(10) || a.consequences END AS text,
         a.created_at, a.agent_id, m.thread_id, NULL AS expires_at
  FROM atoms a LEFT JOIN messages m ON m.id = a.source_message_id
  WHERE a.id = @id`;

function knowledgeDocument(
  ctx: BrainContext,
  type: 'stm' | 'atom',
  rowid: number,
): EmbedDocument | undefined {
  const r = ctx.q
    .get<[{ id: number }], KnowledgeDocRow>(type === 'stm' ? STM_DOC_SQL : ATOM_DOC_SQL)
    .get({ id: rowid });
  if (!r) return undefined;
  return finish(type, rowid, r.text, r.created_at, r.agent_id, r.thread_id ?? 0, r.expires_at);
}

function finish(
  type: SearchType,
  rowid: number,
  text: string,
  createdMs: number,
  agentId: number,
  threadId: number,
  expiresMs: number | null,
): EmbedDocument {
  const clipped = clip(text, MAX_CHARS);
  return {
    type,
    rowid,
    text: clipped,
    hash: contentHash(clipped),
    createdMs,
    agentId,
    threadId,
    expiresMs: expiresMs ?? NEVER_MS,
  };
}

/** The text to embed for an item, or undefined when the item no longer exists. */
export function buildDocument(
  ctx: BrainContext,
  type: SearchType,
  rowid: number,
): EmbedDocument | undefined {
  return type === 'message' ? messageDocument(ctx, rowid) : knowledgeDocument(ctx, type, rowid);
}
