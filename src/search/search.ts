import { z } from 'zod';
import { isoNow } from '../clock.js';
import type { BrainContext } from '../context.js';
import { getAtomsByRowIds } from '../knowledge/atoms.js';
import { getStmByRowIds, recordAccess } from '../knowledge/stm.js';
import { agentRowId } from '../messaging/agents.js';
import {
  MESSAGE_SELECT,
  excerpt,
  toMessageRecord,
  type MessageRow,
} from '../messaging/messages.js';
import {
  SEARCH_TYPES,
  agentName,
  isoTime,
  parseInput,
  text,
  threadId,
  type SearchType,
} from '../validation.js';
import { buildFtsQueries } from './fts-query.js';
import { ftsRetrieve, ftsSnippet, type Candidate, type SearchFilters } from './fts.js';

export const MAX_QUERY_CHARS = 2000;

/** `until` given as a bare date includes that whole day. */
const untilTime = z.string().transform((s, ctx) => {
  const parsed = isoTime.safeParse(s);
  if (!parsed.success) {
    for (const issue of parsed.error.issues)
      ctx.addIssue({ code: 'custom', message: issue.message });
    return z.NEVER;
  }
  return /^\d{4}-\d{2}-\d{2}$/.test(s.trim())
    ? new Date(Date.parse(parsed.data) + 86_400_000).toISOString()
    : parsed.data;
});

export const searchInput = z.strictObject({
  query: text(MAX_QUERY_CHARS).refine((s) => s.trim().length > 0, 'must not be empty'),
  types: z
    .array(z.enum(SEARCH_TYPES))
    .min(1, 'must name at least one type')
    .default([...SEARCH_TYPES]),
  limit: z.coerce.number().int().min(1).max(200).default(20),
  since: isoTime.optional(),
  until: untilTime.optional(),
  thread: threadId.optional(),
  agent: agentName.optional(),
});
export type SearchInput = z.input<typeof searchInput>;

export type Retriever = 'fts' | 'vector';

export interface SearchHit {
  type: SearchType;
  id: string;
  title: string;
  snippet: string;
  time: string;
  thread_id: string | null;
  agent: string;
  score: number;
  /** Which retrievers found it, with its rank and raw score in each. */
  found_by: Partial<Record<Retriever, { rank: number; score: number }>>;
}

export interface SearchResult {
  hits: SearchHit[];
  /** Things the caller should know, e.g. that the query had no searchable words. */
  notices: string[];
}

/** One search over messages, STM and atoms. Never fails on the text of the query. */
export function search(ctx: BrainContext, input: SearchInput): SearchResult {
  const args = parseInput(searchInput, input);
  const queries = buildFtsQueries(args.query);
  if (!queries) return { hits: [], notices: ['the query has no words to search for'] };

  const filters: SearchFilters = {
    since: args.since ?? null,
    until: args.until ?? null,
    thread: null,
    agent: null,
    now: isoNow(ctx.clock),
  };
  if (args.thread) {
    const row = ctx.q
      .get<[string], { id: number }>(`SELECT id FROM threads WHERE uid = ?`)
      .get(args.thread);
    if (!row) return { hits: [], notices: [`no thread ${args.thread}`] };
    filters.thread = row.id;
  }
  if (args.agent) {
    const id = agentRowId(ctx, args.agent);
    if (id === undefined) return { hits: [], notices: [`no agent ${args.agent}`] };
    filters.agent = id;
  }

  const fts = ftsRetrieve(ctx, queries, args.types, filters, args.limit);
  const hits = hydrate(ctx, fts, queries.any);
  recordAccess(
    ctx,
    fts.filter((c) => c.type === 'stm').map((c) => c.rowid),
  );
  return { hits, notices: [] };
}

function hydrate(ctx: BrainContext, candidates: Candidate[], match: string): SearchHit[] {
  const byType = (t: SearchType) => candidates.filter((c) => c.type === t).map((c) => c.rowid);
  const stm = getStmByRowIds(ctx, byType('stm'));
  const atoms = getAtomsByRowIds(ctx, byType('atom'));
  const messageStmt = ctx.q.get<[number], MessageRow>(`${MESSAGE_SELECT} WHERE m.id = ?`);
  const threadOfSource = ctx.q.get<[string], { uid: string }>(
    `SELECT t.uid FROM messages m JOIN threads t ON t.id = m.thread_id WHERE m.uid = ?`,
  );
  const hits: SearchHit[] = [];
  for (const c of candidates) {
    const found_by = { fts: { rank: c.rank, score: round(c.score) } };
    const snippet = ftsSnippet(ctx, c.type, match, c.rowid);
    if (c.type === 'message') {
      const row = messageStmt.get(c.rowid);
      if (!row) continue;
      const m = toMessageRecord(row);
      hits.push({
        type: 'message',
        id: m.id,
        title: m.subject,
        snippet: snippet ?? excerpt(m.body, 160),
        time: m.created_at,
        thread_id: m.thread_id,
        agent: m.from,
        score: round(c.score),
        found_by,
      });
    } else if (c.type === 'stm') {
      const s = stm.get(c.rowid);
      if (!s) continue;
      hits.push({
        type: 'stm',
        id: s.id,
        title: excerpt(s.content),
        snippet: snippet ?? excerpt(s.content, 160),
        time: s.created_at,
        thread_id: s.source_message_id
          ? (threadOfSource.get(s.source_message_id)?.uid ?? null)
          : null,
        agent: s.agent,
        score: round(c.score),
        found_by,
      });
    } else {
      const a = atoms.get(c.rowid);
      if (!a) continue;
      hits.push({
        type: 'atom',
        id: a.id,
        title: a.subject,
        snippet: snippet ?? `${a.action} → ${a.outcome}`,
        time: a.created_at,
        thread_id: a.source_message_id
          ? (threadOfSource.get(a.source_message_id)?.uid ?? null)
          : null,
        agent: a.agent,
        score: round(c.score),
        found_by,
      });
    }
  }
  return hits;
}

function round(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}
