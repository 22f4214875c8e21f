import type { BrainContext } from '../context.js';
import { normalized, roughStem, wordsOfNormalized } from './fts-query.js';
import { MESSAGE_FIELDS, type MessageField } from './fts-tables.js';
import { termIdfs } from './rank.js';

/** Each field's share of a message's BM25, from 0 to 1, the fields holding none left out. */
export type FieldShares = Partial<Record<MessageField, number>>;

const FIELDS_SQL = `SELECT s.id AS rowid, s.subject, s.body || coalesce(char(10) || s.attachments, '') AS body,
    s.sender, s.date
  FROM json_each(?) c JOIN messages_search s ON s.id = c.value`;

/**
 * What each field of each message adds to its BM25, as shares. FTS5's BM25 sums each query word's
 * weighted hits over the fields before it saturates them, so a word's part is split between the
 * fields in proportion to its weighted hits there, and words are weighed by their idf: a field's
 * share is the idf-weighted sum of its weighted hits over the message's. Words are matched as the
 * word coverage matches them (rough stems), which the index's porter stemmer may count a little
 * differently: shares explain a score, they do not recompute it.
 */
export function fieldShares(
  ctx: BrainContext,
  rowids: number[],
  terms: string[],
): Map<number, FieldShares> {
  const shares = new Map<number, FieldShares>();
  if (rowids.length === 0 || terms.length === 0) return shares;
  const idfs = termIdfs(ctx, 'message', terms);
  const weightOf = new Map(terms.map((t, i) => [roughStem(t), idfs[i]!]));
  const fields = Object.keys(MESSAGE_FIELDS) as MessageField[];
  for (const row of ctx.q
    .get<[string], Record<MessageField, string | null> & { rowid: number }>(FIELDS_SQL)
    .all(JSON.stringify(rowids))) {
    const parts: Partial<Record<MessageField, number>> = {};
    let total = 0;
    for (const field of fields) {
      let part = 0;
      for (const word of wordsOfNormalized(normalized(row[field] ?? ''))) {
        part += weightOf.get(roughStem(word)) ?? 0;
      }
      part *= MESSAGE_FIELDS[field];
      if (part > 0) parts[field] = part;
      total += part;
    }
    const share: FieldShares = {};
    for (const field of fields) {
      const part = parts[field];
      if (part !== undefined) share[field] = Math.round((part / total) * 100) / 100;
    }
    shares.set(row.rowid, share);
  }
  return shares;
}
