import type { BrainContext } from '../context.js';
import { hasRankFunction } from '../db/rank-extension.js';
import { storageFailureCode } from '../db/storage-errors.js';
import type { SearchType } from '../validation.js';
import type { FtsQueries } from './fts-query.js';

/**
 * Snippets are FTS5's snippet() of the hits' full text, marked where the query's words are. With
 * the compiled extension, brain_snippet (src/native/brain_snippet.c) makes FTS5's choice from
 * each text tokenized once, in the statement that reads the texts.
 *
 * Without it, they come from a private copy of the hits' full text in a temporary index with the same
 * columns and tokenizer as the type's own. For messages the main index could not give them: it
 * holds the text without stop words (migration 0007). For all types a snippet from the main index
 * costs a seek in every segment of every word's list (~0.4 ms a hit for common words at 1,000,000
 * messages, ~0.08 ms for STM entries); indexing twenty short texts afresh costs less than a few of
 * them. The index reads its text from a temporary table, so it is emptied without reading it
 * back ('delete-all').
 */
interface SnippetSource {
  /** Where the full text is, by `id`. */
  from: string;
  columns: readonly string[];
  /** The column snippets come from; -1 lets FTS5 choose the one that matches best. */
  column: number;
}

const SNIPPET_SOURCES: Record<SearchType, SnippetSource> = {
  message: { from: 'messages_search', columns: ['subject', 'body', 'sender', 'date'], column: 1 },
  stm: { from: 'stm', columns: ['content'], column: -1 },
  atom: { from: 'atoms', columns: ['subject', 'action', 'outcome', 'consequences'], column: -1 },
};

interface SnippetSql {
  create: string[];
  clear: string[];
  copy: string;
  index: string;
  snippets: string;
}

/** How a snippet marks the query's words, and how many tokens it shows: one rule for every path. */
const MARKS = { open: `'['`, close: `']'`, ellipsis: `'…'`, tokens: 16 };

/** FTS5's snippet() of an index's row, marked as every snippet is. */
export function snippetCall(index: string, column: number): string {
  return `snippet(${index}, ${column}, ${MARKS.open}, ${MARKS.close}, ${MARKS.ellipsis}, ${MARKS.tokens})`;
}

/** brain_snippet of the given texts for the words bound first, marked as every snippet is. */
export function compiledSnippetCall(column: number, texts: string): string {
  return `brain_snippet(?, ${column}, ${MARKS.tokens}, ${MARKS.open}, ${MARKS.close}, ${MARKS.ellipsis}, ${texts})`;
}

/**
 * How much of each text the temporary index holds. snippet() weighs every hit's window against
 * every hit: a body of one word said 200,000 times (a megabyte, which any sender may write) would
 * hold a search for minutes; brain_snippet does not, and reads the whole text.
 */
export const SNIPPET_TEXT_CHARS = 16_384;

function snippetSql(type: SearchType, { from, columns, column }: SnippetSource): SnippetSql {
  const texts = `${type}_snippet_texts`;
  const index = `${type}_snippets`;
  const cols = columns.join(', ');
  return {
    create: [
      `CREATE TABLE IF NOT EXISTS temp.${texts} (id INTEGER PRIMARY KEY, ${cols})`,
      `CREATE VIRTUAL TABLE IF NOT EXISTS temp.${index} USING fts5(${cols},
        content = '${texts}', content_rowid = 'id',
        tokenize = 'porter unicode61 remove_diacritics 2')`,
    ],
    clear: [
      `INSERT INTO temp.${index} (${index}) VALUES ('delete-all')`,
      `DELETE FROM temp.${texts}`,
    ],
    copy: `INSERT INTO temp.${texts} (id, ${cols})
      SELECT x.id, ${columns.map((c) => `substr(x.${c}, 1, ${SNIPPET_TEXT_CHARS})`).join(', ')}
      FROM (SELECT DISTINCT value AS id FROM json_each(?)) c JOIN ${from} x ON x.id = c.id`,
    index: `INSERT INTO temp.${index} (rowid, ${cols}) SELECT id, ${cols} FROM temp.${texts}`,
    snippets: `SELECT rowid, ${snippetCall(index, column)} AS s
      FROM temp.${index} WHERE ${index} MATCH ?`,
  };
}

/** The snippets of the given rows by brain_snippet; NULL for a row no text of which matches. */
function compiledSql(type: SearchType, { from, columns, column }: SnippetSource): string {
  const texts = columns.map((c) => `x.${c}`).join(', ');
  return `SELECT x.id AS rowid, ${compiledSnippetCall(column, texts)} AS s
    FROM (SELECT DISTINCT value AS id FROM json_each(?)) c JOIN ${from} x ON x.id = c.id`;
}

const COMPILED_SQL: Record<SearchType, string> = {
  message: compiledSql('message', SNIPPET_SOURCES.message),
  stm: compiledSql('stm', SNIPPET_SOURCES.stm),
  atom: compiledSql('atom', SNIPPET_SOURCES.atom),
};

function compiledSnippets(
  ctx: BrainContext,
  type: SearchType,
  terms: string[],
  rowids: number[],
): Map<number, string> {
  const snippets = new Map<number, string>();
  for (const [rowid, s] of ctx.q
    .get<[string, string], [number, string | null]>(COMPILED_SQL[type])
    .raw()
    .all(terms.join('\x1f'), JSON.stringify(rowids))) {
    if (s !== null) snippets.set(rowid, s);
  }
  return snippets;
}

const SNIPPET_SQL: Record<SearchType, SnippetSql> = {
  message: snippetSql('message', SNIPPET_SOURCES.message),
  stm: snippetSql('stm', SNIPPET_SOURCES.stm),
  atom: snippetSql('atom', SNIPPET_SOURCES.atom),
};

/** Where no temporary index can be made: the start of each message's text, unmarked. */
const MESSAGE_EXCERPTS = `SELECT s.id AS rowid, substr(s.body, 1, 200) AS s
  FROM json_each(?) c JOIN messages_search s ON s.id = c.value`;

// Where no temporary index can be made, STM entries and atoms take theirs from the main index, a
// lookup per row. (The message index holds no stop words since migration 0007: no snippet there.)
const MAIN_INDEX_SNIPPET_SQL: Record<Exclude<SearchType, 'message'>, string> = {
  stm: `SELECT ${snippetCall('stm_fts', -1)} AS s FROM stm_fts WHERE stm_fts MATCH ? AND rowid = CAST(? AS INTEGER)`,
  atom: `SELECT ${snippetCall('atoms_fts', -1)} AS s FROM atoms_fts WHERE atoms_fts MATCH ? AND rowid = CAST(? AS INTEGER)`,
};

function indexedSnippets(
  ctx: BrainContext,
  type: SearchType,
  match: string,
  rowids: number[],
): Map<number, string> {
  const sql = SNIPPET_SQL[type];
  for (const create of sql.create) ctx.q.get(create).run();
  // Left filled until the next search empties it: the texts of its last hits, on this connection.
  for (const clear of sql.clear) ctx.q.get(clear).run();
  ctx.q.get<[string]>(sql.copy).run(JSON.stringify(rowids));
  ctx.q.get(sql.index).run();
  const snippets = new Map<number, string>();
  for (const row of ctx.q.get<[string], { rowid: number; s: string }>(sql.snippets).all(match)) {
    snippets.set(row.rowid, row.s);
  }
  return snippets;
}

/** Which of the given rows' indexed texts are longer than a number of characters. */
const LONG_TEXTS_SQL: Record<Exclude<SearchType, 'message'>, string> = {
  stm: `SELECT x.id FROM json_each(?) c JOIN stm x ON x.id = c.value
    WHERE length(x.content) > ?`,
  atom: `SELECT x.id FROM json_each(?) c JOIN atoms x ON x.id = c.value
    WHERE coalesce(length(x.subject), 0) + coalesce(length(x.action), 0)
      + coalesce(length(x.outcome), 0) + coalesce(length(x.consequences), 0) > ?`,
};

function fallbackSnippets(
  ctx: BrainContext,
  type: SearchType,
  match: string,
  rowids: number[],
): Map<number, string> {
  const snippets = new Map<number, string>();
  if (type === 'message') {
    for (const row of ctx.q
      .get<[string], { rowid: number; s: string }>(MESSAGE_EXCERPTS)
      .all(JSON.stringify(rowids)))
      snippets.set(row.rowid, row.s);
    return snippets;
  }
  // A rowid bound as a JS number reaches FTS5 as a REAL, and FTS5 then ignores the rowid
  // constraint (it returned another row's snippet); a BigInt binds as an INTEGER.
  const stmt = ctx.q.get<[string, bigint], { s: string }>(MAIN_INDEX_SNIPPET_SQL[type]);
  // snippet() over a long text can take minutes (SNIPPET_TEXT_CHARS): such a row shows the
  // start of its text, as it does with no snippet.
  const long = new Set(
    ctx.q
      .get<[string, number], number>(LONG_TEXTS_SQL[type])
      .pluck()
      .all(JSON.stringify(rowids), SNIPPET_TEXT_CHARS),
  );
  for (const rowid of rowids) {
    if (long.has(rowid)) continue;
    const s = stmt.get(match, BigInt(rowid))?.s;
    if (s !== undefined) snippets.set(rowid, s);
  }
  return snippets;
}

/** A short excerpt around the matched words of each given row; rows that do not match have none. */
export function ftsSnippets(
  ctx: BrainContext,
  type: SearchType,
  queries: Pick<FtsQueries, 'any' | 'terms'>,
  rowids: number[],
): Map<number, string> {
  if (rowids.length === 0) return new Map();
  if (hasRankFunction(ctx.db)) return compiledSnippets(ctx, type, queries.terms, rowids);
  const match = queries.any;
  try {
    return indexedSnippets(ctx, type, match, rowids);
  } catch (err) {
    // Where the connection may not write even its own temporary tables (query_only, as on a
    // read-only disk) or the disk is full: messages show the start of their text, STM entries
    // and atoms their main index's snippet.
    const code = storageFailureCode(err);
    if (code !== 'SQLITE_READONLY' && code !== 'SQLITE_FULL') throw err;
    return fallbackSnippets(ctx, type, match, rowids);
  }
}
