import { isoSql, millisOf } from '../clock.js';
import type { BrainContext } from '../context.js';
import { BrainError } from '../errors.js';
import { newId } from '../ids.js';
import { ensureAgent } from '../messaging/agents.js';
import { check, object, type InputOf } from '../input/check.js';
import { agentName, count, id, isoTime, lookupKey, number, oneOf, text } from '../input/fields.js';
import { LINK_TYPES, type LinkType } from '../vocabulary.js';
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

const part = (name: string) =>
  text(10_000).refine((s) => s.trim().length > 0, `${name} must not be empty`);
const unit = (words: string) =>
  number(0, 1, 'must be between 0 and 1').default(0.5).describe(words);

export const atomInput = object({
  agent: agentName().describe('Whose knowledge'),
  subject: part('subject').describe('What it is about'),
  action: part('action').describe('What was done'),
  outcome: part('outcome').describe('What happened'),
  consequences: text(10_000).default('').describe('What follows from it'),
  confidence: unit('0 to 1'),
  source_message_id: id('message').optional().describe('The message it came from (syn_…)'),
  /** For importers and replays. */
  at: isoTime().optional().describe('When it was learned (ISO 8601); default now'),
});
export type AtomInput = InputOf<typeof atomInput>;

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

export const linkInput = object({
  from: id('atom').describe('Atom (atm_…)'),
  to: id('atom').describe('Atom (atm_…)'),
  type: oneOf(LINK_TYPES).default('causes').describe('How the first bears on the second'),
  strength: unit('0 to 1'),
});
export type LinkInput = InputOf<typeof linkInput>;

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

const chainInput = object({
  atom_id: id('atom'),
  direction: oneOf(['forward', 'backward', 'both']).default('both'),
  depth: count(1, 10).default(3),
});
export type ChainInput = InputOf<typeof chainInput>;

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
