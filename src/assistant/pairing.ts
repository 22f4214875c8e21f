import { randomInt } from 'node:crypto';
import { z } from 'zod';
import { isoNow, isoOfMillis, millisOf } from '../clock.js';
import type { BrainContext } from '../context.js';
import { BrainError } from '../errors.js';
import { parseInput, text } from '../validation.js';
import {
  PAIRING_ALPHABET,
  PAIRING_CODE_LENGTH,
  PAIRING_TTL_MS,
  PAIRING_MAX_PENDING,
} from './vocabulary.js';

/**
 * Pairing: a sender of a channel who is not on the allowlist asks with a short code; the owner
 * approves or denies it (`brain pairing approve CODE`); approved senders are served from then on.
 */

export type PairingStatus = 'pending' | 'approved' | 'denied';

export interface PairingRecord {
  channel: string;
  user_id: string;
  name: string;
  code: string;
  status: PairingStatus;
  created_at: string;
  expires_at: string;
  decided_at: string | null;
}

interface PairingRow extends Omit<PairingRecord, 'created_at' | 'expires_at' | 'decided_at'> {
  created_at: number;
  expires_at: number;
  decided_at: number | null;
}

const toRecord = (r: PairingRow): PairingRecord => ({
  ...r,
  created_at: isoOfMillis(r.created_at)!,
  expires_at: isoOfMillis(r.expires_at)!,
  decided_at: isoOfMillis(r.decided_at),
});

const SELECT = `SELECT channel, user_id, name, code, status, created_at, expires_at, decided_at
  FROM pairings`;

const channelName = text(40).regex(/^[a-z][a-z0-9-]*$/, 'must be a channel name like telegram');
const sender = z.strictObject({
  channel: channelName,
  user_id: text(100).min(1, 'must not be empty'),
});
const requestInput = sender.extend({ name: text(200).default('') });
export type PairingSender = z.input<typeof sender>;
export type RequestPairingInput = z.input<typeof requestInput>;

/**
 * What a request came to: a code (new, or the one still pending for this sender), `approved`
 * (already paired), `denied` (the owner said no), or `full` (too many requests waiting).
 */
export type PairingRequestResult =
  | { status: 'pending'; code: string; expires_at: string; created: boolean }
  | { status: 'approved' | 'denied' | 'full' };

export function newPairingCode(): string {
  let code = '';
  for (let i = 0; i < PAIRING_CODE_LENGTH; i++)
    code += PAIRING_ALPHABET[randomInt(PAIRING_ALPHABET.length)];
  return code;
}

/** A sender asks to be paired: one short transaction. */
export function requestPairing(
  ctx: BrainContext,
  input: RequestPairingInput,
): PairingRequestResult {
  const args = parseInput(requestInput, input);
  const now = millisOf(isoNow(ctx.clock));
  return ctx.db
    .transaction((): PairingRequestResult => {
      const row = ctx.q
        .get<[string, string], PairingRow>(`${SELECT} WHERE channel = ? AND user_id = ?`)
        .get(args.channel, args.user_id);
      if (row?.status === 'approved' || row?.status === 'denied') return { status: row.status };
      if (row && row.expires_at > now)
        return {
          status: 'pending',
          code: row.code,
          expires_at: isoOfMillis(row.expires_at)!,
          created: false,
        };
      const waiting = ctx.q
        .get<[string, number], { n: number }>(
          `SELECT count(*) AS n FROM pairings
           WHERE channel = ? AND status = 'pending' AND expires_at > ?`,
        )
        .get(args.channel, now)!.n;
      if (waiting >= PAIRING_MAX_PENDING) return { status: 'full' };
      // Expired pending codes free their code for reuse: drop them before drawing a new one.
      ctx.q.get(`DELETE FROM pairings WHERE status = 'pending' AND expires_at <= ?`).run(now);
      let code = newPairingCode();
      const taken = ctx.q.get<[string], { n: number }>(
        `SELECT count(*) AS n FROM pairings WHERE code = ? AND status = 'pending'`,
      );
      while (taken.get(code)!.n > 0) code = newPairingCode();
      const expires = now + PAIRING_TTL_MS;
      ctx.q
        .get(
          `INSERT INTO pairings (channel, user_id, name, code, status, created_at, expires_at)
           VALUES (?, ?, ?, ?, 'pending', ?, ?)`,
        )
        .run(args.channel, args.user_id, args.name, code, now, expires);
      return { status: 'pending', code, expires_at: isoOfMillis(expires)!, created: true };
    })
    .immediate();
}

/** Whether the owner approved this sender. Reads only. */
export function isPaired(ctx: BrainContext, input: PairingSender): boolean {
  const args = parseInput(sender, input);
  return (
    ctx.q
      .get<[string, string], { n: number }>(
        `SELECT count(*) AS n FROM pairings
         WHERE channel = ? AND user_id = ? AND status = 'approved'`,
      )
      .get(args.channel, args.user_id)!.n > 0
  );
}

/** Requests still valid and approved senders, newest first. */
export function listPairings(ctx: BrainContext): PairingRecord[] {
  const now = millisOf(isoNow(ctx.clock));
  return ctx.q
    .get<[number], PairingRow>(
      `${SELECT} WHERE status = 'approved' OR (status = 'pending' AND expires_at > ?)
       ORDER BY created_at DESC, id DESC`,
    )
    .all(now)
    .map(toRecord);
}

const decideInput = z.strictObject({
  code: z
    .string()
    .transform((s) => s.trim().toUpperCase())
    .pipe(
      z
        .string()
        .length(PAIRING_CODE_LENGTH, `must be ${PAIRING_CODE_LENGTH} characters`)
        .regex(new RegExp(`^[${PAIRING_ALPHABET}]+$`), 'must be a pairing code like ABCD2345'),
    ),
  decision: z.enum(['approve', 'deny']),
});
export type DecidePairingInput = z.input<typeof decideInput>;

/** The owner's answer to a pending, unexpired code; NOT_FOUND when there is none. */
export function decidePairing(ctx: BrainContext, input: DecidePairingInput): PairingRecord {
  const args = parseInput(decideInput, input);
  const now = millisOf(isoNow(ctx.clock));
  const row = ctx.db
    .transaction(() =>
      ctx.q
        .get<[string, number, string, number], PairingRow>(
          `UPDATE pairings SET status = ?, decided_at = ?
           WHERE code = ? AND status = 'pending' AND expires_at > ?
           RETURNING channel, user_id, name, code, status, created_at, expires_at, decided_at`,
        )
        .get(args.decision === 'approve' ? 'approved' : 'denied', now, args.code, now),
    )
    .immediate();
  if (!row) throw new BrainError('NOT_FOUND', `code: no pending pairing request ${args.code}`);
  return toRecord(row);
}
