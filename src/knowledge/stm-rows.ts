// Short-term memories as rows and records, with no input checking: what search needs without
// loading the schemas of stm.ts.
import { isoSql } from '../clock.js';
import type { BrainContext } from '../context.js';
import { recordsByRowIds } from '../db/rows-by-id.js';
import { messageIdSql } from '../ids.js';

export interface StmRecord {
  id: string;
  agent: string;
  content: string;
  categories: string[];
  importance: number;
  source_message_id: string | null;
  created_at: string;
  /** When what it says happened, when known; created_at is when it was learned. */
  occurred_at: string | null;
  expires_at: string | null;
  access_count: number;
  /** The extractor that learned it (`name@version`); null when an agent stated it. */
  extractor: string | null;
}

export interface StmRow extends Omit<StmRecord, 'categories'> {
  rowid: number;
  categories: string;
}

export const STM_SELECT = `
  SELECT s.id AS rowid, s.uid AS id, a.name AS agent, s.content,
         (SELECT json_group_array(category) FROM (SELECT category FROM stm_categories WHERE stm_id = s.id ORDER BY category)) AS categories,
         s.importance, ${messageIdSql('m.uid')} AS source_message_id,
         ${isoSql('s.created_at')} AS created_at, ${isoSql('s.occurred_at')} AS occurred_at,
         ${isoSql('s.expires_at')} AS expires_at,
         s.access_count, s.extractor
  FROM stm s JOIN agents a ON a.id = s.agent_id LEFT JOIN messages m ON m.id = s.source_message_id`;

export function toStmRecord(row: StmRow): StmRecord {
  const { rowid: _rowid, ...rest } = row;
  return { ...rest, categories: JSON.parse(row.categories) as string[] };
}

export function getStmByRowIds(ctx: BrainContext, rowids: number[]): Map<number, StmRecord> {
  return recordsByRowIds<StmRow, StmRecord>(ctx, STM_SELECT, 's', rowids, toStmRecord);
}
