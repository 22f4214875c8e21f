import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BrainError } from '../errors.js';
import { parseGoDuration } from './generations.js';

/**
 * Where Litestream keeps a brain's replica. Each kind is written out field by field in the
 * config (not as Litestream's `url:`), because Litestream 0.3 reads an S3 endpoint, a region or
 * an SFTP key only from fields, and the same spec serves `replicate` and `restore`.
 */
export type Replica =
  | { type: 'file'; path: string }
  | {
      type: 's3';
      bucket: string;
      path: string;
      endpoint?: string;
      region?: string;
      forcePathStyle?: boolean;
    }
  | { type: 'sftp'; host: string; user: string; path: string; keyPath?: string };

/** How often Litestream ships new WAL frames to the replica unless told otherwise (its default). */
export const DEFAULT_SYNC_INTERVAL = '1s';

const S3_PARAMS = new Set(['endpoint', 'region', 'force-path-style']);
const SFTP_PARAMS = new Set(['key-path']);

/**
 * A replica from its URL: `file:///dir`, `s3://bucket/path[?endpoint=…&region=…&force-path-style=true]`
 * or `sftp://user@host[:port]/path[?key-path=…]`. `option` names the flag in errors. Credentials
 * never go in the URL (it shows in `ps` and in the printed config): S3 keys come from Litestream's
 * environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY), SFTP uses a key file.
 */
export function parseReplicaUrl(value: string, option = '--to'): Replica {
  const fail = (why: string): never => {
    throw new BrainError('INVALID_INPUT', `${option}: ${why}`);
  };
  const trimmed = value.trim();
  if (!trimmed)
    fail('must be a replica URL (file:///dir, s3://bucket/path or sftp://user@host/path)');
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return fail(
      `${JSON.stringify(value)} is not a URL (file:///dir, s3://bucket/path or sftp://user@host/path)`,
    );
  }
  const params = (allowed: Set<string>): Map<string, string> => {
    const found = new Map<string, string>();
    for (const [key, v] of url.searchParams) {
      if (!allowed.has(key))
        fail(
          `${url.protocol}// takes no "${key}" parameter${allowed.size ? ` (only ${[...allowed].join(', ')})` : ''}`,
        );
      found.set(key, v);
    }
    return found;
  };
  if (url.password) fail('must not hold a password: use a key file or the environment');
  switch (url.protocol) {
    case 'file:': {
      params(new Set());
      if (url.host) fail('a file:// URL names a local folder: file:///absolute/path');
      const path = fileURLToPath(url);
      if (path === '/' || !isAbsolute(path)) fail('must name a folder, not the root');
      return { type: 'file', path: resolve(path) };
    }
    case 's3:': {
      const p = params(S3_PARAMS);
      if (!url.hostname) fail('an s3:// URL names a bucket: s3://bucket/path');
      const path = decodeURIComponent(url.pathname).replace(/^\/+|\/+$/g, '');
      if (!path) fail('an s3:// URL names a path in the bucket: s3://bucket/brain');
      const forcePathStyle = p.get('force-path-style');
      if (forcePathStyle !== undefined && forcePathStyle !== 'true' && forcePathStyle !== 'false')
        fail('force-path-style must be true or false');
      const endpoint = p.get('endpoint');
      if (endpoint !== undefined && !/^https?:\/\/[^/\s]+/.test(endpoint))
        fail('endpoint must be a URL such as https://s3.example.com');
      return {
        type: 's3',
        bucket: url.hostname,
        path,
        ...(endpoint ? { endpoint } : {}),
        ...(p.get('region') ? { region: p.get('region')! } : {}),
        ...(forcePathStyle ? { forcePathStyle: forcePathStyle === 'true' } : {}),
      };
    }
    case 'sftp:': {
      const p = params(SFTP_PARAMS);
      if (!url.hostname) fail('an sftp:// URL names a host: sftp://user@host/path');
      if (!url.username) fail('an sftp:// URL names a user: sftp://user@host/path');
      const path = decodeURIComponent(url.pathname);
      if (path === '/' || !path)
        fail('an sftp:// URL names a folder on the host: sftp://user@host/srv/brain');
      const keyPath = p.get('key-path');
      if (keyPath !== undefined && !isAbsolute(keyPath)) fail('key-path must be an absolute path');
      return {
        type: 'sftp',
        host: `${url.hostname}:${url.port || '22'}`,
        user: decodeURIComponent(url.username),
        path,
        ...(keyPath ? { keyPath } : {}),
      };
    }
    default:
      return fail(
        `${url.protocol.replace(/:$/, '')}:// is not a replica Litestream can use here (file://, s3:// or sftp://)`,
      );
  }
}

/** The replica as a URL again, for messages (never holds a secret: none is accepted). */
export function describeReplica(replica: Replica): string {
  switch (replica.type) {
    case 'file':
      return `file://${replica.path}`;
    case 's3':
      return `s3://${replica.bucket}/${replica.path}`;
    case 'sftp':
      return `sftp://${replica.user}@${replica.host}${replica.path}`;
  }
}

/** A Go duration as Litestream reads it: whole numbers of ms, s, m or h ("250ms", "1s", "5m"). */
export function parseSyncInterval(value: string, option = '--sync-interval'): string {
  const trimmed = value.trim();
  if (!/^\d+(ms|s|m|h)$/.test(trimmed) || /^0+(ms|s|m|h)$/.test(trimmed))
    throw new BrainError(
      'INVALID_INPUT',
      `${option}: must be a duration such as 250ms, 1s or 5m, got ${JSON.stringify(value)}`,
    );
  return trimmed;
}

export interface LitestreamConfigOptions {
  /** How often new WAL frames go to the replica (default 1s): the bound on what a lost disk loses. */
  syncInterval?: string;
}

/**
 * The Litestream YAML that replicates (or restores) `dbPath` with `replica`. Strings are written
 * as JSON strings, which YAML reads as double-quoted scalars, so no path can break the file.
 */
export function litestreamConfig(
  dbPath: string,
  replica: Replica,
  options: LitestreamConfigOptions = {},
): string {
  const q = (s: string) => JSON.stringify(s);
  const syncInterval = options.syncInterval ?? DEFAULT_SYNC_INTERVAL;
  const lines = ['dbs:', `  - path: ${q(resolve(dbPath))}`];
  // Litestream looks at the WAL once a second by default: a shorter sync needs a shorter look.
  if ((parseGoDuration(syncInterval) ?? 1000) < 1000)
    lines.push(`    monitor-interval: ${syncInterval}`);
  lines.push('    replicas:');
  const field = (name: string, value: string | boolean) =>
    lines.push(`        ${name}: ${typeof value === 'string' ? q(value) : String(value)}`);
  lines.push(`      - type: ${replica.type}`);
  switch (replica.type) {
    case 'file':
      field('path', replica.path);
      break;
    case 's3':
      field('bucket', replica.bucket);
      field('path', replica.path);
      if (replica.endpoint) field('endpoint', replica.endpoint);
      if (replica.region) field('region', replica.region);
      if (replica.forcePathStyle !== undefined) field('force-path-style', replica.forcePathStyle);
      break;
    case 'sftp':
      field('host', replica.host);
      field('user', replica.user);
      field('path', replica.path);
      if (replica.keyPath) field('key-path', replica.keyPath);
      break;
  }
  lines.push(`        sync-interval: ${syncInterval}`);
  return `${lines.join('\n')}\n`;
}
