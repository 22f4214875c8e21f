import { isoSql, millisOf } from '../clock.js';
import type { BrainContext } from '../context.js';
import { BrainError } from '../errors.js';
import { newId } from '../ids.js';
import { ensureAgent } from '../messaging/agents.js';
import { check } from '../input/check.js';
import { lookupKey } from '../input/fields.js';
import type { LinkType } from '../vocabulary.js';
import {
  atomInput,
  chainInput,
  linkInput,
  type AtomInput,
  type ChainInput,
  type LinkInput,
} from './input.js';

export { atomInput, linkInput, type AtomInput, type ChainInput, type LinkInput } from './input.js';
import { sourceRowId } from './stm.js';
import { insertAtom, insertLink } from './store.js';
import {
  ATOM_SELECT,
  getAtomsByRowIds,
  toAtomRecord,
  type AtomRecord,
  type AtomRow,
} from './atom-rows.js';

export { ATOM_SELECT, getAtomsByRowIds, toAtomRecord, type AtomRecord } from './atom-rows.js';

/** Record a causal atom: subject, action, outcome, consequences. */
export function createAtom(ctx: BrainContext, input: AtomInput): AtomRecord {
  const args = check(atomInput, input);
  const uid = newId('atom');
  ctx.db
    .transaction(() => {
      insertAtom(ctx, {
        uid,
        agent_id: ensureAgent(ctx, args.agent),
        subject: args.subject,
        action: args.action,
        outcome: args.outcome,
        consequences: args.consequences,
        confidence: args.confidence,
        source_message_id: args.source_message_id ? sourceRowId(ctx, args.source_message_id) : null,
        created_at: args.at ? millisOf(args.at) : ctx.clock().getTime(),
        occurred_at: args.occurred_at ? millisOf(args.occurred_at) : null,
      });
    })
    .immediate();
  return getAtom(ctx, uid)!;
}

export function getAtom(ctx: BrainContext, id: string): AtomRecord | undefined {
  lookupKey(id, 'id');
  const row = ctx.q.get<[string], AtomRow>(`${ATOM_SELECT} WHERE t.uid = ?`).get(id);
  return row && toAtomRecord(row);
}

export interface LinkRecord {
  from: string;
  to: string;
  type: LinkType;
  strength: number;
  created_at: string;
}

/** Link two atoms; linking again with the same type updates the strength. */
export function linkAtoms(ctx: BrainContext, input: LinkInput): LinkRecord {
  const args = check(linkInput, input);
  if (args.from === args.to)
    throw new BrainError('INVALID_INPUT', 'to: an atom cannot link to itself');
  return ctx.db
    .transaction((): LinkRecord => {
      const from = atomRowId(ctx, args.from, 'from');
      const to = atomRowId(ctx, args.to, 'to');
      const at = ctx.clock().getTime();
      insertLink(
        ctx,
        { from_atom: from, to_atom: to, type: args.type, strength: args.strength, created_at: at },
        true,
      );
      const row = ctx.q
        .get<[number, number, string], { strength: number; created_at: string }>(
          `SELECT strength, ${isoSql('created_at')} AS created_at FROM atom_links
           WHERE from_atom = ? AND to_atom = ? AND link_type = ?`,
        )
        .get(from, to, args.type)!;
      return {
        from: args.from,
        to: args.to,
        type: args.type,
        strength: row.strength,
        created_at: row.created_at,
      };
    })
    .immediate();
}

function atomRowId(ctx: BrainContext, id: string, field: string): number {
  const row = ctx.q.get<[string], { id: number }>(`SELECT id FROM atoms WHERE uid = ?`).get(id);
  if (!row) throw new BrainError('NOT_FOUND', `${field}: no atom ${id}`);
  return row.id;
}

export interface ChainStep {
  atom: AtomRecord;
  /** Steps from the start; negative going backwards (causes of the start). */
  depth: number;
  link: LinkRecord;
}

export interface AtomChain {
  start: AtomRecord;
  steps: ChainStep[];
}

/** Walk links from an atom, forwards (what it leads to) and/or backwards (what led to it). */
export function atomChain(ctx: BrainContext, input: ChainInput): AtomChain {
  const args = check(chainInput, input);
  const start = getAtom(ctx, args.atom_id);
  if (!start) throw new BrainError('NOT_FOUND', `atom_id: no atom ${args.atom_id}`);
  const startRow = atomRowId(ctx, args.atom_id, 'atom_id');
  const walk = (forward: boolean): ChainStep[] => {
    const [near, far] = forward ? ['from_atom', 'to_atom'] : ['to_atom', 'from_atom'];
    const rows = ctx.q
      .get<
        [{ start: number; depth: number }],
        {
          atom: number;
          depth: number;
          from_atom: number;
          to_atom: number;
          link_type: LinkType;
          strength: number;
          created_at: string;
        }
      >(
        `WITH RECURSIVE walk(atom, depth, from_atom, to_atom, link_type, strength, created_at, path) AS (
           SELECT l.${far}, 1, l.from_atom, l.to_atom, l.link_type, l.strength, l.created_at, ',' || CAST(@start AS INTEGER) || ',' || l.${far} || ','
           FROM atom_links l WHERE l.${near} = @start
           UNION ALL
           SELECT l.${far}, w.depth + 1, l.from_atom, l.to_atom, l.link_type, l.strength, l.created_at, w.path || l.${far} || ','
           FROM walk w JOIN atom_links l ON l.${near} = w.atom
           WHERE w.depth < @depth AND instr(w.path, ',' || l.${far} || ',') = 0
         )
         SELECT atom, depth, from_atom, to_atom, link_type, strength, ${isoSql('created_at')} AS created_at
         FROM walk ORDER BY depth, strength DESC`,
      )
      .all({ start: startRow, depth: args.depth });
    const atoms = getAtomsByRowIds(ctx, [
      ...new Set(rows.flatMap((r) => [r.atom, r.from_atom, r.to_atom])),
    ]);
    return rows.map((r) => ({
      atom: atoms.get(r.atom)!,
      depth: forward ? r.depth : -r.depth,
      link: {
        from: atoms.get(r.from_atom)!.id,
        to: atoms.get(r.to_atom)!.id,
        type: r.link_type,
        strength: r.strength,
        created_at: r.created_at,
      },
    }));
  };
  const steps = [
    ...(args.direction !== 'forward' ? walk(false) : []),
    ...(args.direction !== 'backward' ? walk(true) : []),
  ];
  return { start, steps };
}
