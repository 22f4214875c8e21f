import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TokenTable } from '../mcp/access.js';

/** Headers on every answer: no inline script, no framing, no sniffing, no referrer leaks. */
export const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Content-Type-Options': 'nosniff',
  // same-origin, not no-referrer: with no-referrer Chromium sends `Origin: null` on its own form POSTs.
  'Referrer-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

export const COOKIE = 'brain_ui';

export interface Viewer {
  /** The agent of the token that logged in; undefined on loopback without tokens. */
  agent?: string;
  /**
   * The owner: logged in with the owner's token, or the local viewer where no login is asked.
   * Only the owner may chat with the assistant.
   */
  owner: boolean;
  /** The CSRF token forms of this viewer carry. */
  csrf: string;
}

/**
 * Who is looking. Without tokens (loopback only) everyone is the local viewer; with tokens a
 * viewer is a session made by logging in once with a token (cookie HttpOnly, SameSite=Strict):
 * an agent's token of `--tokens`, or the owner's token (the chat page's login), which makes the
 * viewer the owner. The cookie holds a random session id, never the token.
 */
export interface Gate {
  readonly needsLogin: boolean;
  viewer(req: IncomingMessage): Viewer | undefined;
  /** Check a presented token: the Set-Cookie value of a new session, or undefined. */
  login(token: string): string | undefined;
  logout(req: IncomingMessage): void;
  checkCsrf(viewer: Viewer, presented: string | undefined): boolean;
}

export function createGate(
  tokens: TokenTable | undefined,
  secure: boolean,
  /** The owner's login token and the owner's agent name. */
  owner?: { token: string; agent: string },
): Gate {
  const secret = randomBytes(32);
  const csrfOf = (id: string) => createHmac('sha256', secret).update(id).digest('base64url');
  const sessions = new Map<string, { agent: string; owner: boolean }>();
  const local: Viewer = { owner: true, csrf: csrfOf('local') };
  const sessionId = (req: IncomingMessage) => readCookie(req.headers.cookie, COOKIE);
  const needsLogin = tokens !== undefined || owner !== undefined;
  // Digests of equal length, compared in constant time.
  const ownerDigest = owner && digest(owner.token);
  return {
    needsLogin,
    viewer(req) {
      if (!needsLogin) return local;
      const id = sessionId(req);
      const session = id === undefined ? undefined : sessions.get(id);
      return session && id
        ? { agent: session.agent, owner: session.owner, csrf: csrfOf(id) }
        : undefined;
    },
    login(token) {
      const isOwner = ownerDigest !== undefined && timingSafeEqual(digest(token), ownerDigest);
      const agent = isOwner ? owner!.agent : tokens?.agentFor(token);
      if (!agent) return undefined;
      const id = randomBytes(32).toString('base64url');
      sessions.set(id, { agent, owner: isOwner });
      return `${COOKIE}=${id}; Path=/; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
    },
    logout(req) {
      const id = sessionId(req);
      if (id) sessions.delete(id);
    },
    checkCsrf(viewer, presented) {
      if (!presented) return false;
      const a = Buffer.from(viewer.csrf);
      const b = Buffer.from(presented);
      return a.length === b.length && timingSafeEqual(a, b);
    },
  };
}

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * A write must come from a page of this very server: its Origin is the scheme and Host it was
 * asked at. A missing Origin is refused too (browsers send it with every POST).
 */
export function sameOrigin(req: IncomingMessage, secure: boolean): boolean {
  const origin = req.headers.origin;
  const host = req.headers.host;
  if (!origin || !host) return false;
  return origin === `${secure ? 'https' : 'http'}://${host}`;
}

export function setSecurityHeaders(res: ServerResponse): void {
  for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.setHeader(k, v);
}
