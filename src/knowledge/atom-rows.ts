// Atoms as rows and records, with no input checking: what search needs without loading the
// schemas of atoms.ts.
import { isoSql } from '../clock.js';
import type { BrainContext } from '../context.js';
import { messageIdSql } from '../ids.js';

export interface AtomRecord {
  id: string;
  agent: string;
  subject: string;
  action: string;
  outcome: string;
  consequences: string;
  confidence: number;
  source_message_id: string | null;
  created_at: string;
}

export interface AtomRow extends AtomRecord {
  rowid: number;
}

export const ATOM_SELECT = `
  SELECT t.id AS rowid, t.uid AS id, a.name AS agent, t.subject, t.action, t.outcome, t.consequences,
         t.confidence, ${messageIdSql('m.uid')} AS source_message_id, ${isoSql('t.created_at')} AS created_at
  FROM atoms t JOIN agents a ON a.id = t.agent_id LEFT JOIN messages m ON m.id = t.source_message_id`;

export function toAtomRecord(row: AtomRow): AtomRecord {
  const { rowid: _rowid, ...rest } = row;
  return rest;
}

export function getAtomsByRowIds(ctx: BrainContext, rowids: number[]): Map<number, AtomRecord> {
  const out = new Map<number, AtomRecord>();
  if (rowids.length === 0) return out;
  // One statement for all of them: a search hydrates up to a hundred at a time.
  const rows = ctx.q
    .get<[string], AtomRow & { rowid: number }>(
      `${ATOM_SELECT} WHERE t.id IN (SELECT value FROM json_each(?))`,
    )
    .all(JSON.stringify(rowids));
  const byRow = new Map(rows.map((row) => [row.rowid, row]));
  for (const id of rowids) {
    const row = byRow.get(id);
    if (row) out.set(id, toAtomRecord(row));
  }
  return out;
}
