import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from './db/package-root.js';

let cached: string | undefined;

/** brain's version, as its package.json declares it (read once, on first use). */
export function packageVersion(): string {
  if (cached) return cached;
  const manifest: unknown = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8'));
  const version = (manifest as { version?: unknown }).version;
  if (typeof version !== 'string') throw new Error('brain: package.json has no version');
  cached = version;
  return version;
}
