// Who may reach `brain serve` and `brain ui` over HTTP: the Host and Origin checks that keep a
// web page from driving a loopback server (DNS rebinding, cross-site requests), and the bearer
// tokens that name the agent each caller acts as. One module for both servers.
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { isIP } from 'node:net';
import { BrainError, agentNameProblems } from '../src/index.js';

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

/** Bearer tokens of `brain serve`, each naming the agent its holder acts as. */
export interface TokenTable {
  /** The agent of a presented token, or undefined. Constant time in the token's content. */
  agentFor(bearer: string): string | undefined;
  readonly size: number;
  /** Agents that have a token (for the start-up note; never the tokens). */
  agents(): string[];
}

export const MIN_TOKEN_LENGTH = 16;

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/**
 * `TOKEN AGENT` per line; blank lines and `#` comments ignored. Errors name the line, never
 * the token.
 */
export function parseTokens(text: string, source = 'tokens file'): TokenTable {
  const entries: Array<{ digest: Buffer; agent: string }> = [];
  const seen = new Set<string>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const where = `--tokens: ${source} line ${i + 1}`;
    const fields = line.split(/\s+/);
    if (fields.length !== 2)
      throw new BrainError('INVALID_INPUT', `${where}: expected "TOKEN AGENT"`);
    const [token, agent] = fields as [string, string];
    if (token.length < MIN_TOKEN_LENGTH)
      throw new BrainError(
        'INVALID_INPUT',
        `${where}: the token is too short (at least ${MIN_TOKEN_LENGTH} characters; try \`openssl rand -hex 32\`)`,
      );
    const problem = agentNameProblems(agent)[0];
    if (problem !== undefined) throw new BrainError('INVALID_INPUT', `${where}: agent ${problem}`);
    if (seen.has(token)) throw new BrainError('INVALID_INPUT', `${where}: the token is repeated`);
    seen.add(token);
    entries.push({ digest: digest(token), agent });
  });
  if (entries.length === 0)
    throw new BrainError('INVALID_INPUT', `--tokens: ${source} has no "TOKEN AGENT" lines`);

  return {
    size: entries.length,
    agents: () => [...new Set(entries.map((e) => e.agent))].sort(),
    agentFor(bearer) {
      // Compare digests (equal lengths) with every entry, without stopping at a match.
      const presented = digest(bearer);
      let agent: string | undefined;
      for (const e of entries) if (timingSafeEqual(presented, e.digest)) agent = e.agent;
      return agent;
    },
  };
}

export interface LoadedTokens {
  table: TokenTable;
  /** Things to tell the operator, e.g. that the file is readable by others. */
  warnings: string[];
}

export function readTokensFile(path: string): LoadedTokens {
  let text: string;
  let mode: number;
  try {
    text = readFileSync(path, 'utf8');
    mode = statSync(path).mode;
  } catch (err) {
    throw new BrainError(
      'INVALID_INPUT',
      `--tokens: cannot read ${path}: ${(err as Error).message}`,
      {
        cause: err,
      },
    );
  }
  const warnings =
    process.platform !== 'win32' && (mode & 0o077) !== 0
      ? [`${path} is readable by other users; chmod 600 it`]
      : [];
  return { table: parseTokens(text, path), warnings };
}

/** The token of an `Authorization: Bearer …` header, if that is what it holds. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
  return match?.[1];
}
