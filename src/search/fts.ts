import type { BrainContext } from '../context.js';
import type { SearchType } from '../validation.js';
import type { FtsQueries } from './fts-query.js';

/** Filters every retriever applies before it cuts to its top k. Row ids, already resolved. */
export interface SearchFilters {
  since: string | null;
  until: string | null;
  thread: number | null;
  agent: number | null;
  now: string;
}

/** One retrieved row: higher score is better; rank is its 1-based place in its retriever's list. */
export interface Candidate {
  type: SearchType;
  rowid: number;
  score: number;
  rank: number;
}

const FTS_SQL: Record<SearchType, string> = {
  // Messages are ranked by their text in context (migration 0002): subject, body, sender, the
  // previous and the next message, date.
  message: `
    SELECT f.rowid AS rowid, bm25(messages_context_fts, 2.0, 1.0, 1.0, 0.5, 0.3, 0.5) AS bm25
    FROM messages_context_fts f JOIN messages m ON m.id = f.rowid
    WHERE messages_context_fts MATCH @match
      AND (@since IS NULL OR m.created_at >= @since)
      AND (@until IS NULL OR m.created_at < @until)
      AND (@thread IS NULL OR m.thread_id = @thread)
      AND (@agent IS NULL OR m.from_agent = @agent)
    ORDER BY bm25 LIMIT @k`,
  stm: `
    SELECT f.rowid AS rowid, bm25(stm_fts) AS bm25
    FROM stm_fts f JOIN stm s ON s.id = f.rowid
    WHERE stm_fts MATCH @match
      AND (s.expires_at IS NULL OR s.expires_at > @now)
      AND (@since IS NULL OR s.created_at >= @since)
      AND (@until IS NULL OR s.created_at < @until)
      AND (@thread IS NULL OR s.source_message_id IN (SELECT id FROM messages WHERE thread_id = @thread))
      AND (@agent IS NULL OR s.agent_id = @agent)
    ORDER BY bm25 LIMIT @k`,
  atom: `
    SELECT f.rowid AS rowid, bm25(atoms_fts, 2.0, 1.0, 1.0, 1.0) AS bm25
    FROM atoms_fts f JOIN atoms t ON t.id = f.rowid
    WHERE atoms_fts MATCH @match
      AND (@since IS NULL OR t.created_at >= @since)
      AND (@until IS NULL OR t.created_at < @until)
      AND (@thread IS NULL OR t.source_message_id IN (SELECT id FROM messages WHERE thread_id = @thread))
      AND (@agent IS NULL OR t.agent_id = @agent)
    ORDER BY bm25 LIMIT @k`,
};

function runFts(
  ctx: BrainContext,
  type: SearchType,
  match: string,
  filters: SearchFilters,
  k: number,
) {
  return ctx.q
    .get<[Record<string, unknown>], { rowid: number; bm25: number }>(FTS_SQL[type])
    .all({ ...filters, match, k });
}

/**
 * BM25 over each type's FTS index: all terms first, widened to any term when that finds fewer
 * than k. Hits matching every term rank above hits matching some.
 */
export function ftsRetrieve(
  ctx: BrainContext,
  queries: FtsQueries,
  types: readonly SearchType[],
  filters: SearchFilters,
  k: number,
): Candidate[] {
  const strict = types.flatMap((type) =>
    runFts(ctx, type, queries.all, filters, k).map((r) => ({
      type,
      rowid: r.rowid,
      bm25: r.bm25,
      all: true,
    })),
  );
  let pool = strict;
  if (strict.length < k && queries.any !== queries.all) {
    const seen = new Set(strict.map((c) => `${c.type}:${c.rowid}`));
    const wide = types.flatMap((type) =>
      runFts(ctx, type, queries.any, filters, k)
        .filter((r) => !seen.has(`${type}:${r.rowid}`))
        .map((r) => ({ type, rowid: r.rowid, bm25: r.bm25, all: false })),
    );
    pool = [...strict, ...wide];
  }
  pool.sort((a, b) => Number(b.all) - Number(a.all) || a.bm25 - b.bm25);
  return pool
    .slice(0, k)
    .map((c, i) => ({ type: c.type, rowid: c.rowid, score: -c.bm25, rank: i + 1 }));
}

const SNIPPET_SQL: Record<SearchType, string> = {
  message: `SELECT snippet(messages_fts, -1, '[', ']', '…', 16) AS s FROM messages_fts WHERE messages_fts MATCH ? AND rowid = CAST(? AS INTEGER)`,
  stm: `SELECT snippet(stm_fts, -1, '[', ']', '…', 16) AS s FROM stm_fts WHERE stm_fts MATCH ? AND rowid = CAST(? AS INTEGER)`,
  atom: `SELECT snippet(atoms_fts, -1, '[', ']', '…', 16) AS s FROM atoms_fts WHERE atoms_fts MATCH ? AND rowid = CAST(? AS INTEGER)`,
};

/** A short excerpt around the matched words, or undefined when the row does not match. */
export function ftsSnippet(
  ctx: BrainContext,
  type: SearchType,
  match: string,
  rowid: number,
): string | undefined {
  // A rowid bound as a JS number reaches FTS5 as a REAL, and FTS5 then ignores the rowid
  // constraint (it returned another row's snippet); a BigInt binds as an INTEGER.
  return ctx.q.get<[string, bigint], { s: string }>(SNIPPET_SQL[type]).get(match, BigInt(rowid))?.s;
}
