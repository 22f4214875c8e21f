import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  statSync,
  writeSync,
  readFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { nodeCrypto } from '../node-crypto.js';

/*
 * The folder beside the brain file that holds attachments too large for its rows
 * (docs/attachments.md): `<brain file>-attachments/<first two hex digits>/<sha256 in hex>`.
 * A file is written under a temporary name, flushed to disk, renamed into place and its folder
 * flushed, all before the transaction that refers to it commits: a crash leaves at worst a file
 * nothing refers to (harmless; `brain doctor` counts them), never a row without its bytes.
 */

export function attachmentsFolder(dbPath: string): string {
  return `${dbPath}-attachments`;
}

export function attachmentPath(dbPath: string, shaHex: string): string {
  return join(attachmentsFolder(dbPath), shaHex.slice(0, 2), shaHex);
}

function fsyncFolder(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Put the bytes in the folder unless a file of theirs is there; whether one was written. */
export function storeFile(dbPath: string, shaHex: string, bytes: Uint8Array): boolean {
  const path = attachmentPath(dbPath, shaHex);
  if (existsSync(path) && statSync(path).size === bytes.length) return false;
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = join(dir, `.tmp-${nodeCrypto().randomBytes(6).toString('hex')}`);
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    let at = 0;
    while (at < bytes.length) at += writeSync(fd, bytes, at, bytes.length - at);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  fsyncFolder(dir);
  return true;
}

export function readStoredFile(dbPath: string, shaHex: string): Buffer | undefined {
  const path = attachmentPath(dbPath, shaHex);
  return existsSync(path) ? readFileSync(path) : undefined;
}

/** The sha256 (hex) of every file in the folder, and left-over temporary files. */
export function listStoredFiles(dbPath: string): { shas: string[]; temporary: string[] } {
  const root = attachmentsFolder(dbPath);
  const shas: string[] = [];
  const temporary: string[] = [];
  if (!existsSync(root)) return { shas, temporary };
  for (const sub of readdirSync(root)) {
    if (!/^[0-9a-f]{2}$/.test(sub)) continue;
    for (const name of readdirSync(join(root, sub))) {
      if (/^[0-9a-f]{64}$/.test(name)) shas.push(name);
      else if (name.startsWith('.tmp-')) temporary.push(join(root, sub, name));
    }
  }
  return { shas, temporary };
}
