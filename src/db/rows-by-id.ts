import type { StatementCache } from './open.js';

/**
 * The records of the given rows in one statement (a search hydrates up to a hundred at a time):
 * `select` is a SELECT ending in its FROM and joins, whose first table is `alias` and which names
 * its rowid `rowid`. Keyed by rowid; ids with no row are left out.
 */
export function recordsByRowIds<Row extends { rowid: number }, R>(
  ctx: { q: StatementCache },
  select: string,
  alias: string,
  rowids: number[],
  record: (row: Row) => R,
): Map<number, R> {
  if (rowids.length === 0) return new Map();
  const rows = ctx.q
    .get<[string], Row>(`${select} WHERE ${alias}.id IN (SELECT value FROM json_each(?))`)
    .all(JSON.stringify(rowids));
  return new Map(rows.map((row) => [row.rowid, record(row)]));
}
