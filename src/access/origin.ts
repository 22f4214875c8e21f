import { isIP } from 'node:net';

/** 127.0.0.0/8, ::1 and localhost: addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  return isIP(h) === 4 && h.startsWith('127.');
}

/** The hostname of a Host header (`name:port`, `[v6]:port`), lower-cased. */
function hostname(hostHeader: string): string {
  const h = hostHeader.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']'));
  return h.split(':')[0] ?? '';
}

/**
 * DNS rebinding defence for a server bound to loopback: a page of evil.example whose name now
 * resolves to 127.0.0.1 still sends `Host: evil.example`, so only loopback names are served.
 */
export function allowedHost(hostHeader: string | undefined): boolean {
  return hostHeader !== undefined && isLoopback(hostname(hostHeader));
}

/**
 * Browsers send Origin; other clients usually do not (and are let through). A browser page may
 * talk to the brain only from a loopback origin or one the operator listed (--allow-origin).
 */
export function allowedOrigin(origin: string, extra: string[]): boolean {
  if (extra.includes(origin)) return true;
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && isLoopback(url.hostname);
  } catch {
    return false; // "null" (sandboxed pages, file://) and garbage: refused
  }
}
