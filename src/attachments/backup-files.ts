import BetterSqlite3 from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { BrainError } from '../errors.js';
import { readStoredFile, storeFile } from './files.js';

/**
 * A backup's files: every file the copied database keeps in the folder (not in its rows) is
 * copied from the brain's folder to the backup's (`<backup>-attachments/`), checked against its
 * sha256. Files are written before the rows that name them commit and never change, so each one
 * the copy names is there. Not `strict` (the doctor saving a damaged brain): a missing or damaged
 * file is left out rather than failing the copy. How many were copied.
 */
export function copyAttachmentFiles(
  copyPath: string,
  dbPath: string,
  targetPath: string,
  strict = true,
): number {
  const copy = new BetterSqlite3(copyPath, { readonly: true });
  let shas: Buffer[];
  try {
    const has = copy
      .prepare(`SELECT count(*) AS n FROM sqlite_schema WHERE name = 'attachment_blobs'`)
      .get() as { n: number };
    if (has.n === 0) return 0;
    shas = (
      copy.prepare(`SELECT sha256 FROM attachment_blobs WHERE data IS NULL`).all() as Array<{
        sha256: Buffer;
      }>
    ).map((r) => r.sha256);
  } finally {
    copy.close();
  }
  let copied = 0;
  for (const sha of shas) {
    const hex = sha.toString('hex');
    const bytes = readStoredFile(dbPath, hex);
    if (!bytes || !createHash('sha256').update(bytes).digest().equals(sha)) {
      if (!strict) continue;
      throw new BrainError(
        'STORAGE_FAILED',
        `attachment ${hex} is ${bytes ? 'damaged' : 'missing'} in the folder beside the brain`,
      );
    }
    storeFile(targetPath, hex, bytes);
    copied += 1;
  }
  return copied;
}
