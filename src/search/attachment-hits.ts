import { attachmentsOf } from '../attachments/store.js';
import type { BrainContext } from '../context.js';
import { hasRankFunction } from '../db/rank-extension.js';
import { storageFailureCode } from '../db/storage-errors.js';
import type { FtsQueries } from './fts-query.js';
import { SNIPPET_TEXT_CHARS, compiledSnippetCall, snippetCall } from './snippets.js';

/*
 * Which message hits were found by words of their attachments rather than of their own text. A
 * message's index entry holds its body followed by its files' names and texts (migration 0024);
 * to tell them apart, the hits that carry files are matched again, their own text and each file
 * apart: by brain_snippet where the compiled extension is loaded (snippets.ts), else in a
 * temporary index, one row for the message's own text and one per file. Hits without files cost
 * one lookup in all; a search whose hits have none pays nothing more.
 */

export interface AttachmentMatch {
  /** The file whose words matched (the first one when the words were spread over several). */
  name: string;
  /** An excerpt of that file's text around the words, when it alone matched. */
  snippet: string | undefined;
}

const CREATE = [
  `CREATE TABLE IF NOT EXISTS temp.attachment_hit_texts (id INTEGER PRIMARY KEY, subject, body, sender, date)`,
  `CREATE VIRTUAL TABLE IF NOT EXISTS temp.attachment_hits USING fts5(subject, body, sender, date,
    content = 'attachment_hit_texts', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2')`,
];
const CLEAR = [
  `INSERT INTO temp.attachment_hits (attachment_hits) VALUES ('delete-all')`,
  `DELETE FROM temp.attachment_hit_texts`,
];
const OWN = `SELECT id, subject, body, sender, date FROM messages_search WHERE id = ?`;
const FILE_TEXTS = `SELECT a.name, coalesce(b.text, '') AS text FROM message_attachments a
  JOIN attachment_blobs b ON b.id = a.blob_id WHERE a.message_id = ? ORDER BY a.position`;
const ADD = `INSERT INTO temp.attachment_hit_texts (id, subject, body, sender, date) VALUES (?, ?, ?, ?, ?)`;
const INDEX = `INSERT INTO temp.attachment_hits (rowid, subject, body, sender, date)
  SELECT id, subject, body, sender, date FROM temp.attachment_hit_texts`;
const MATCHES = `SELECT rowid, ${snippetCall('attachment_hits', 1)} AS s
  FROM temp.attachment_hits WHERE attachment_hits MATCH ?`;

/** A message's own text, and each of its files (name, then text), marked as snippets.ts marks. */
const OWN_SNIPPET = `SELECT ${compiledSnippetCall(1, 'subject, body, sender, date')}
  FROM messages_search WHERE id = ?`;
const FILE_SNIPPETS = `SELECT ${compiledSnippetCall(1, "a.name, coalesce(b.text, '')")}
  FROM message_attachments a JOIN attachment_blobs b ON b.id = a.blob_id
  WHERE a.message_id = ? ORDER BY a.position`;

/** As much of a text as snippets.ts's temporary index takes, for the same reason. */
function cut(text: string): string {
  return text.slice(0, SNIPPET_TEXT_CHARS);
}

/** For each message hit found through its files' words: which file, and an excerpt of it. */
export function attachmentMatches(
  ctx: BrainContext,
  queries: Pick<FtsQueries, 'any' | 'terms'>,
  rowids: readonly number[],
): Map<number, AttachmentMatch> {
  const out = new Map<number, AttachmentMatch>();
  const files = attachmentsOf(ctx, rowids);
  if (files.size === 0) return out;
  if (hasRankFunction(ctx.db)) {
    const words = queries.terms.join('\x1f');
    for (const [rowid, list] of files) {
      // Found by its own words: not through a file.
      if (ctx.q.get<[string, number], string | null>(OWN_SNIPPET).pluck().get(words, rowid))
        continue;
      const marked = ctx.q
        .get<[string, number], string | null>(FILE_SNIPPETS)
        .pluck()
        .all(words, rowid);
      const i = marked.findIndex((s) => s !== null);
      out.set(rowid, {
        name: list[Math.max(i, 0)]!.name,
        snippet: i >= 0 ? (marked[i] ?? undefined) : undefined,
      });
    }
    return out;
  }
  const match = queries.any;
  try {
    for (const sql of CREATE) ctx.q.get(sql).run();
    for (const sql of CLEAR) ctx.q.get(sql).run();
    // Row ids: message row × 32 + 0 for its own text, + 1 + position for each file.
    const add = ctx.q.get(ADD);
    for (const rowid of files.keys()) {
      const own = ctx.q
        .get<[number], { id: number; subject: string; body: string; sender: string; date: string }>(
          OWN,
        )
        .get(rowid);
      if (!own) continue;
      add.run(rowid * 32, own.subject, cut(own.body), own.sender, own.date);
      ctx.q
        .get<[number], { name: string; text: string }>(FILE_TEXTS)
        .all(rowid)
        .forEach((f, i) => add.run(rowid * 32 + 1 + i, f.name, cut(f.text), '', ''));
    }
    ctx.q.get(INDEX).run();
    const matched = new Map<number, string>();
    for (const row of ctx.q.get<[string], { rowid: number; s: string }>(MATCHES).all(match))
      matched.set(row.rowid, row.s);
    for (const [rowid, list] of files) {
      if (matched.has(rowid * 32)) continue;
      const i = list.findIndex((_, p) => matched.has(rowid * 32 + 1 + p));
      out.set(rowid, {
        name: list[Math.max(i, 0)]!.name,
        snippet: i >= 0 ? matched.get(rowid * 32 + 1 + i) : undefined,
      });
    }
    return out;
  } catch (err) {
    // Where the connection may not write even its temporary tables, hits go unmarked.
    const code = storageFailureCode(err);
    if (code !== 'SQLITE_READONLY' && code !== 'SQLITE_FULL') throw err;
    return out;
  }
}
