import type { BrainContext } from '../context.js';
import { storageFailureCode } from '../db/storage-errors.js';
import type { SearchType } from '../validation.js';

/**
 * Messages' snippets come from a private copy of the hits' full text (`messages_search`, stop
 * words and all) in a temporary index with the same columns and tokenizer as `messages_fts`. The
 * main index could not give them: it holds the text without stop words (migration 0007), and a
 * snippet from it cost a seek in every segment of every word's list (~0.4 ms a hit for common
 * words at 1,000,000 messages); indexing twenty short texts afresh costs less than one of them.
 * The index reads its text from a temporary table, so it is emptied without reading it back
 * ('delete-all').
 */
const MESSAGE_SNIPPET_TABLES = [
  `CREATE TABLE IF NOT EXISTS temp.message_snippet_texts (
    id INTEGER PRIMARY KEY, subject TEXT, body TEXT, sender TEXT, date TEXT
  )`,
  `CREATE VIRTUAL TABLE IF NOT EXISTS temp.message_snippets USING fts5(
    subject, body, sender, date,
    content = 'message_snippet_texts', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
  )`,
];

const CLEAR_MESSAGE_SNIPPETS = [
  `INSERT INTO temp.message_snippets (message_snippets) VALUES ('delete-all')`,
  `DELETE FROM temp.message_snippet_texts`,
];

const COPY_MESSAGE_TEXTS = `INSERT INTO temp.message_snippet_texts (id, subject, body, sender, date)
  SELECT s.id, s.subject, s.body, s.sender, s.date
  FROM (SELECT DISTINCT value AS id FROM json_each(?)) c JOIN messages_search s ON s.id = c.id`;

const INDEX_MESSAGE_TEXTS = `INSERT INTO temp.message_snippets (rowid, subject, body, sender, date)
  SELECT id, subject, body, sender, date FROM temp.message_snippet_texts`;

const MESSAGE_SNIPPETS = `SELECT rowid, snippet(message_snippets, 1, '[', ']', '…', 16) AS s
  FROM temp.message_snippets WHERE message_snippets MATCH ?`;

/** Where no temporary index can be made: the start of each message's text, unmarked. */
const MESSAGE_EXCERPTS = `SELECT s.id AS rowid, substr(s.body, 1, 200) AS s
  FROM json_each(?) c JOIN messages_search s ON s.id = c.value`;

// A lookup per row in the main index: STM and atoms have small ones, so it costs little there.
// (The message index holds no stop words since migration 0007: its text makes no snippet.)
const SNIPPET_SQL: Record<Exclude<SearchType, 'message'>, string> = {
  stm: `SELECT snippet(stm_fts, -1, '[', ']', '…', 16) AS s FROM stm_fts WHERE stm_fts MATCH ? AND rowid = CAST(? AS INTEGER)`,
  atom: `SELECT snippet(atoms_fts, -1, '[', ']', '…', 16) AS s FROM atoms_fts WHERE atoms_fts MATCH ? AND rowid = CAST(? AS INTEGER)`,
};

function messageSnippets(ctx: BrainContext, match: string, rowids: number[]): Map<number, string> {
  for (const sql of MESSAGE_SNIPPET_TABLES) ctx.q.get(sql).run();
  // Left filled until the next search empties it: the texts of its last hits, on this connection.
  for (const sql of CLEAR_MESSAGE_SNIPPETS) ctx.q.get(sql).run();
  ctx.q.get<[string]>(COPY_MESSAGE_TEXTS).run(JSON.stringify(rowids));
  ctx.q.get(INDEX_MESSAGE_TEXTS).run();
  const snippets = new Map<number, string>();
  for (const row of ctx.q
    .get<[string], { rowid: number; s: string }>(MESSAGE_SNIPPETS)
    .all(match)) {
    snippets.set(row.rowid, row.s);
  }
  return snippets;
}

/** A short excerpt around the matched words of each given row; rows that do not match have none. */
export function ftsSnippets(
  ctx: BrainContext,
  type: SearchType,
  match: string,
  rowids: number[],
): Map<number, string> {
  const snippets = new Map<number, string>();
  if (rowids.length === 0) return snippets;
  if (type === 'message') {
    try {
      return messageSnippets(ctx, match, rowids);
    } catch (err) {
      // Where the connection may not write even its own temporary tables (query_only, as on a
      // read-only disk) or the disk is full, each message shows the start of its text.
      const code = storageFailureCode(err);
      if (code !== 'SQLITE_READONLY' && code !== 'SQLITE_FULL') throw err;
      for (const row of ctx.q
        .get<[string], { rowid: number; s: string }>(MESSAGE_EXCERPTS)
        .all(JSON.stringify(rowids)))
        snippets.set(row.rowid, row.s);
      return snippets;
    }
  }
  // A rowid bound as a JS number reaches FTS5 as a REAL, and FTS5 then ignores the rowid
  // constraint (it returned another row's snippet); a BigInt binds as an INTEGER.
  const stmt = ctx.q.get<[string, bigint], { s: string }>(SNIPPET_SQL[type]);
  for (const rowid of rowids) {
    const s = stmt.get(match, BigInt(rowid))?.s;
    if (s !== undefined) snippets.set(rowid, s);
  }
  return snippets;
}
