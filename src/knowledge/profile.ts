import { isoSql } from '../clock.js';
import type { BrainContext } from '../context.js';
import { BrainError } from '../errors.js';
import { messageIdSql, newId, threadIdSql } from '../ids.js';
import { lookupKey } from '../input/fields.js';
import { ensureAgent } from '../messaging/agents.js';
import { PROFILE_CATEGORY } from '../vocabulary.js';
import { insertStm } from './store.js';
import { sourceRowId } from './stm.js';

/**
 * The owner's profile: STM entries of category `profile` (a keyed one also has `profile:<key>`)
 * that come from the owner: stated by the owner's agent (`brain profile set`), or by the
 * assistant from a message the owner sent. Any other entry of the category (another agent's
 * `remember`, the assistant's from anyone else's message) is not read as the profile, whatever
 * it says: the check is on the rows, so no writer can add to the profile by naming the category.
 */

/** A key: what a fact is about (`name`, `time-zone`, `partner`), lowercase. */
export const PROFILE_KEY = /^[a-z0-9][a-z0-9_.-]{0,47}$/;

export interface ProfileFact {
  id: string;
  key: string | null;
  content: string;
  created_at: string;
  /** Who stated it: the owner's agent, or the assistant's. */
  agent: string;
  /** The message it came from: id, thread, sender and time; null for one the owner set. */
  source: { message_id: string; thread_id: string; from: string; at: string } | null;
}

export interface ProfileWho {
  owner: string;
  assistant: string;
}

interface FactRow extends Omit<ProfileFact, 'source' | 'key'> {
  categories: string;
  source_id: string | null;
  source_thread: string | null;
  source_from: string | null;
  source_at: string | null;
}

const SELECT = `
  SELECT s.uid AS id, s.content, ${isoSql('s.created_at')} AS created_at, a.name AS agent,
         (SELECT json_group_array(category) FROM stm_categories WHERE stm_id = s.id) AS categories,
         ${messageIdSql('m.uid')} AS source_id, ${threadIdSql('t.uid')} AS source_thread,
         f.name AS source_from, ${isoSql('m.created_at')} AS source_at
  FROM stm_categories c
  JOIN stm s ON s.id = c.stm_id
  JOIN agents a ON a.id = s.agent_id
  LEFT JOIN messages m ON m.id = s.source_message_id
  LEFT JOIN threads t ON t.id = m.thread_id
  LEFT JOIN agents f ON f.id = m.from_agent
  WHERE c.category = '${PROFILE_CATEGORY}'`;

/** Current entries that come from the owner. */
const FACTS = `${SELECT}
    AND s.superseded_by IS NULL AND (s.expires_at IS NULL OR s.expires_at > @now)
    AND (a.name = @owner OR (a.name = @assistant AND f.name = @owner))`;

function toFact(row: FactRow): ProfileFact {
  const categories = JSON.parse(row.categories) as string[];
  const keyed = categories.find((c) => c.startsWith(`${PROFILE_CATEGORY}:`));
  return {
    id: row.id,
    key: keyed ? keyed.slice(PROFILE_CATEGORY.length + 1) : null,
    content: row.content,
    created_at: row.created_at,
    agent: row.agent,
    source:
      row.source_id === null
        ? null
        : {
            message_id: row.source_id,
            thread_id: row.source_thread!,
            from: row.source_from!,
            at: row.source_at!,
          },
  };
}

/** The profile, newest first. Reads only (no access is noted: the prompt reads it every turn). */
export function profileFacts(ctx: BrainContext, who: ProfileWho, limit = 200): ProfileFact[] {
  return ctx.q
    .get<[Record<string, unknown>], FactRow>(
      `${FACTS} ORDER BY s.created_at DESC, s.id DESC LIMIT @limit`,
    )
    .all({ ...who, now: ctx.clock().getTime(), limit })
    .map(toFact);
}

/**
 * State a fact of the profile as the owner (`brain profile set`), or as the assistant from the
 * owner's message `source_message_id`. A keyed fact replaces the current one with its key (which
 * stays, superseded, for provenance). One transaction.
 */
export function setProfileFact(
  ctx: BrainContext,
  input: { agent: string; key?: string; content: string; source_message_id?: string },
): ProfileFact {
  const key = input.key?.trim().toLowerCase();
  if (key !== undefined && !PROFILE_KEY.test(key))
    throw new BrainError(
      'INVALID_INPUT',
      'key: must be 1-48 lowercase letters, digits, _ . or - (starting with a letter or digit)',
    );
  const content = input.content.trim();
  if (content === '') throw new BrainError('INVALID_INPUT', 'text: must not be empty');
  if (content.length > 2000)
    throw new BrainError('INVALID_INPUT', 'text: must be at most 2000 characters');
  const uid = newId('stm');
  ctx.db
    .transaction(() => {
      const rowid = insertStm(ctx, {
        uid,
        agent_id: ensureAgent(ctx, input.agent),
        content,
        importance: 2,
        source_message_id: input.source_message_id
          ? sourceRowId(ctx, input.source_message_id)
          : null,
        created_at: ctx.clock().getTime(),
        expires_at: null,
        categories: key ? [PROFILE_CATEGORY, `${PROFILE_CATEGORY}:${key}`] : [PROFILE_CATEGORY],
      });
      if (key)
        ctx.q
          .get(
            `UPDATE stm SET superseded_by = @rowid
             WHERE id IN (SELECT stm_id FROM stm_categories WHERE category = @category)
               AND id != @rowid AND superseded_by IS NULL`,
          )
          .run({ rowid: rowid!, category: `${PROFILE_CATEGORY}:${key}` });
    })
    .immediate();
  const row = ctx.q.get<[string], FactRow>(`${SELECT} AND s.uid = ?`).get(uid);
  return toFact(row!);
}

/**
 * Take a fact out of the profile: it lapses now (nothing is deleted; its provenance stays).
 * NOT_FOUND when the id is no current profile entry.
 */
export function forgetProfileFact(ctx: BrainContext, id: string): void {
  lookupKey(id, 'id');
  const now = ctx.clock().getTime();
  const changed = ctx.q
    .get(
      `UPDATE stm SET expires_at = @now
       WHERE uid = @uid AND superseded_by IS NULL AND (expires_at IS NULL OR expires_at > @now)
         AND id IN (SELECT stm_id FROM stm_categories WHERE category = '${PROFILE_CATEGORY}')`,
    )
    .run({ uid: id, now }).changes;
  if (changed === 0) throw new BrainError('NOT_FOUND', `id: no profile fact ${id}`);
}
