import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The webhook signature, the same both ways (brain → a receiver, a sender → `brain agent`'s hooks):
 * `Brain-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, as Stripe signs.
 * The timestamp is inside the signed text, so a captured request cannot be replayed once it is
 * older than the receiver's window; several `v1=` are accepted so a secret can be rotated.
 * docs/webhooks.md is the receiver's reference.
 */

export const SIGNATURE_HEADER = 'brain-signature';
/** How old (or how far in the future) a signed timestamp may be: five minutes, as Stripe. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** The `Brain-Signature` header's value for `body` sent at `unixSeconds`. */
export function signPayload(secret: string, body: string, unixSeconds: number): string {
  return `t=${unixSeconds},v1=${hmacHex(secret, `${unixSeconds}.${body}`)}`;
}

export type SignatureCheck =
  | { ok: true; timestamp: number }
  | { ok: false; reason: 'missing' | 'malformed' | 'stale' | 'mismatch' };

/**
 * Whether `header` signs `body` with `secret` at a time within `toleranceSeconds` of `nowSeconds`.
 * The comparison takes the same time whatever the bytes, so it tells an attacker nothing.
 */
export function verifySignature(
  secret: string,
  body: string,
  header: string | undefined,
  nowSeconds: number,
  toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
): SignatureCheck {
  if (!header) return { ok: false, reason: 'missing' };
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (key === 'v1' && /^[0-9a-f]{64}$/.test(value)) signatures.push(value);
  }
  if (timestamp === undefined || signatures.length === 0) return { ok: false, reason: 'malformed' };
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) return { ok: false, reason: 'stale' };
  const expected = Buffer.from(hmacHex(secret, `${timestamp}.${body}`), 'hex');
  const matches = signatures.some((s) => timingSafeEqual(Buffer.from(s, 'hex'), expected));
  return matches ? { ok: true, timestamp } : { ok: false, reason: 'mismatch' };
}

function hmacHex(secret: string, text: string): string {
  return createHmac('sha256', secret).update(text, 'utf8').digest('hex');
}
