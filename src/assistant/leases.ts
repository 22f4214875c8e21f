import { z } from 'zod';
import { hostname } from 'node:os';
import { isoNow, isoOfMillis, millisOf } from '../clock.js';
import type { BrainContext } from '../context.js';
import { parseInput, text } from '../validation.js';
import type { LeaseHolder } from './vocabulary.js';

const holder = z.strictObject({
  pid: z.number().int().min(1),
  host: text(255).min(1, 'must not be empty'),
  label: text(200).default(''),
});

const leaseKey = text(300).min(1, 'must not be empty');
/** Up to a day: a lease outliving its holder by more would only block others for longer. */
const ttl = z.number().int().min(1).max(86_400_000);

const acquireInput = z.strictObject({ key: leaseKey, holder, ttl_ms: ttl });
export type AcquireLeaseInput = z.input<typeof acquireInput>;
const releaseInput = z.strictObject({ key: leaseKey, holder });
export type ReleaseLeaseInput = z.input<typeof releaseInput>;

export interface LeaseRecord {
  key: string;
  holder: LeaseHolder;
  acquired_at: string;
  expires_at: string;
}

interface LeaseRow {
  key: string;
  pid: number;
  host: string;
  label: string;
  acquired_at: number;
  expires_at: number;
}

/**
 * Take the lease `key` for `ttl_ms`: true when taken. Taken when free, already held by the same
 * holder (then renewed), expired, or held by a process of this host that no longer exists
 * (`kill(pid, 0)` answers ESRCH): a crashed turn frees its session at once. A pid of another host
 * cannot be checked; its lease frees when it expires. (A pid reused by a new process of this host
 * keeps the lease until it expires: never wrongly taken, only late.)
 */
export function acquireLease(ctx: BrainContext, input: AcquireLeaseInput): boolean {
  const args = parseInput(acquireInput, input);
  const now = millisOf(isoNow(ctx.clock));
  return ctx.db
    .transaction((): boolean => {
      const row = leaseRow(ctx, args.key);
      if (row && !sameHolder(row, args.holder) && row.expires_at > now && holderAlive(row)) {
        return false;
      }
      const acquiredAt = row && sameHolder(row, args.holder) ? row.acquired_at : now;
      ctx.q
        .get(
          `INSERT INTO leases (key, pid, host, label, acquired_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT (key) DO UPDATE SET pid = excluded.pid, host = excluded.host,
             label = excluded.label, acquired_at = excluded.acquired_at, expires_at = excluded.expires_at`,
        )
        .run(
          args.key,
          args.holder.pid,
          args.holder.host,
          args.holder.label,
          acquiredAt,
          now + args.ttl_ms,
        );
      return true;
    })
    .immediate();
}

/**
 * Extend a lease its holder still has: true when renewed, false when it is no longer theirs
 * (taken over after it expired). A lease past its time that nobody took is still theirs.
 */
export function renewLease(ctx: BrainContext, input: AcquireLeaseInput): boolean {
  const args = parseInput(acquireInput, input);
  const now = millisOf(isoNow(ctx.clock));
  return ctx.db
    .transaction(
      () =>
        ctx.q
          .get(
            `UPDATE leases SET expires_at = ? WHERE key = ? AND pid = ? AND host = ? AND label = ?`,
          )
          .run(now + args.ttl_ms, args.key, args.holder.pid, args.holder.host, args.holder.label)
          .changes > 0,
    )
    .immediate();
}

/** Give a lease up; nothing happens when the holder no longer has it. */
export function releaseLease(ctx: BrainContext, input: ReleaseLeaseInput): void {
  const args = parseInput(releaseInput, input);
  ctx.db
    .transaction(() => {
      ctx.q
        .get(`DELETE FROM leases WHERE key = ? AND pid = ? AND host = ? AND label = ?`)
        .run(args.key, args.holder.pid, args.holder.host, args.holder.label);
    })
    .immediate();
}

/** Who holds `key` and until when, if anyone has it (expired leases included). */
export function getLease(ctx: BrainContext, key: string): LeaseRecord | undefined {
  const row = leaseRow(ctx, parseInput(leaseKey, key, { '': 'key' }));
  if (!row) return undefined;
  return {
    key: row.key,
    holder: { pid: row.pid, host: row.host, label: row.label },
    acquired_at: isoOfMillis(row.acquired_at)!,
    expires_at: isoOfMillis(row.expires_at)!,
  };
}

function leaseRow(ctx: BrainContext, key: string): LeaseRow | undefined {
  return ctx.q.get<[string], LeaseRow>(`SELECT * FROM leases WHERE key = ?`).get(key);
}

function sameHolder(row: LeaseRow, h: LeaseHolder): boolean {
  return row.pid === h.pid && row.host === h.host && row.label === h.label;
}

/** False only when the holder's process is known to be gone: on this host, and ESRCH. */
function holderAlive(row: LeaseRow): boolean {
  if (row.host !== hostname()) return true;
  if (row.pid === process.pid) return true;
  try {
    process.kill(row.pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to another user, so it is alive.
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
