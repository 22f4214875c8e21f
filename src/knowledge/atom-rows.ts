// Atoms as rows and records, with no input checking: what search needs without loading the
// schemas of atoms.ts.
import { isoSql } from '../clock.js';
import type { BrainContext } from '../context.js';
import { recordsByRowIds } from '../db/rows-by-id.js';
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
  /** When what it says happened, when known; created_at is when it was learned. */
  occurred_at: string | null;
}

export interface AtomRow extends AtomRecord {
  rowid: number;
}

export const ATOM_SELECT = `
  SELECT t.id AS rowid, t.uid AS id, a.name AS agent, t.subject, t.action, t.outcome, t.consequences,
         t.confidence, ${messageIdSql('m.uid')} AS source_message_id, ${isoSql('t.created_at')} AS created_at,
         ${isoSql('t.occurred_at')} AS occurred_at
  FROM atoms t JOIN agents a ON a.id = t.agent_id LEFT JOIN messages m ON m.id = t.source_message_id`;

export function toAtomRecord(row: AtomRow): AtomRecord {
  const { rowid: _rowid, ...rest } = row;
  return rest;
}

export function getAtomsByRowIds(ctx: BrainContext, rowids: number[]): Map<number, AtomRecord> {
  return recordsByRowIds<AtomRow, AtomRecord>(ctx, ATOM_SELECT, 't', rowids, toAtomRecord);
}
