import type { BrainContext } from '../context.js';
import { notifyIndexers } from '../context.js';
import type { LinkType } from '../validation.js';

/*
 * The one place STM entries, atoms and atom links are written: remembering, importing an export
 * and migrating from Cortex each turn their input into these arguments. Each function runs inside
 * its caller's write transaction and checks nothing its caller already checked; times are
 * milliseconds since 1970 (UTC).
 */

export interface StmWrite {
  uid: string;
  agent_id: number;
  content: string;
  importance: number;
  source_message_id: number | null;
  created_at: number;
  expires_at: number | null;
  access_count?: number;
  last_accessed_at?: number | null;
  categories: readonly string[];
  /** The extractor that learned it (`name@version`); absent when an agent stated it. */
  extractor?: string | null;
  /** What it is about, as its extractor names it (see migration 0021). */
  about?: string | null;
  /** When what it says happened, when known (migration 0023). */
  occurred_at?: number | null;
}

/**
 * Add an STM entry with its categories and its source, unless one with its id exists. Its row id
 * when added.
 */
export function insertStm(ctx: BrainContext, stm: StmWrite): number | undefined {
  const result = ctx.q
    .get(
      `INSERT INTO stm (uid, agent_id, content, importance, source_message_id, created_at, expires_at, access_count, last_accessed_at, extractor, about, occurred_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(uid) DO NOTHING`,
    )
    .run(
      stm.uid,
      stm.agent_id,
      stm.content,
      stm.importance,
      stm.source_message_id,
      stm.created_at,
      stm.expires_at,
      stm.access_count ?? 0,
      stm.last_accessed_at ?? null,
      stm.extractor ?? null,
      stm.about ?? null,
      stm.occurred_at ?? null,
    );
  if (result.changes === 0) return undefined;
  const rowid = Number(result.lastInsertRowid);
  const addCategory = ctx.q.get(
    `INSERT OR IGNORE INTO stm_categories (stm_id, category) VALUES (?, ?)`,
  );
  for (const c of stm.categories) addCategory.run(rowid, c);
  if (stm.source_message_id !== null)
    addStmSource(ctx, rowid, {
      message: stm.source_message_id,
      extractor: stm.extractor ?? null,
      readFrom: stm.extractor ? stm.source_message_id : null,
      at: stm.created_at,
    });
  notifyIndexers(ctx, { type: 'stm', rowid });
  return rowid;
}

/**
 * Note that an STM entry was (also) learned from a message: by an extractor while it read
 * `readFrom` (the message itself, or a later turn answering it), or stated by an agent
 * (`extractor` and `readFrom` null). Whether the source is new to it.
 */
export function addStmSource(
  ctx: BrainContext,
  stmId: number,
  source: { message: number; extractor: string | null; readFrom: number | null; at: number },
): boolean {
  return (
    ctx.q
      .get(
        `INSERT INTO stm_sources (stm_id, message_id, extractor, read_from, added_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(stm_id, message_id) DO NOTHING`,
      )
      .run(stmId, source.message, source.extractor, source.readFrom, source.at).changes > 0
  );
}

export interface AtomWrite {
  uid: string;
  agent_id: number;
  subject: string;
  action: string;
  outcome: string;
  consequences: string;
  confidence: number;
  source_message_id: number | null;
  created_at: number;
  /** When what it says happened, when known (migration 0023). */
  occurred_at?: number | null;
}

/** Add an atom, unless one with its id exists. Its row id when added. */
export function insertAtom(ctx: BrainContext, atom: AtomWrite): number | undefined {
  const result = ctx.q
    .get(
      `INSERT INTO atoms (uid, agent_id, subject, action, outcome, consequences, confidence, source_message_id, created_at, occurred_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(uid) DO NOTHING`,
    )
    .run(
      atom.uid,
      atom.agent_id,
      atom.subject,
      atom.action,
      atom.outcome,
      atom.consequences,
      atom.confidence,
      atom.source_message_id,
      atom.created_at,
      atom.occurred_at ?? null,
    );
  if (result.changes === 0) return undefined;
  const rowid = Number(result.lastInsertRowid);
  notifyIndexers(ctx, { type: 'atom', rowid });
  return rowid;
}

export interface LinkWrite {
  from_atom: number;
  to_atom: number;
  type: LinkType;
  strength: number;
  created_at: number;
}

/**
 * Link two atoms (row ids). A link of the same type between them is kept, with its strength made
 * this one's when `restrength` (linking again) or left as it was (importing). Whether it was added.
 */
export function insertLink(ctx: BrainContext, link: LinkWrite, restrength = false): boolean {
  const added =
    ctx.q
      .get(
        `INSERT INTO atom_links (from_atom, to_atom, link_type, strength, created_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(from_atom, to_atom, link_type) DO NOTHING`,
      )
      .run(link.from_atom, link.to_atom, link.type, link.strength, link.created_at).changes > 0;
  if (!added && restrength) {
    ctx.q
      .get(
        `UPDATE atom_links SET strength = ? WHERE from_atom = ? AND to_atom = ? AND link_type = ?`,
      )
      .run(link.strength, link.from_atom, link.to_atom, link.type);
  }
  return added;
}
