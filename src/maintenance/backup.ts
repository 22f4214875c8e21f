import { existsSync, mkdirSync, realpathSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { Database } from 'better-sqlite3';
import { z } from 'zod';
import { copyAttachmentFiles } from '../attachments/backup-files.js';
import { BrainError } from '../errors.js';
import { describeStorageFailure } from '../db/storage-errors.js';
import { parseInput, text } from '../validation.js';

export interface BackupResult {
  /** Absolute path of the backup file. */
  path: string;
  bytes: number;
  pages: number;
  /** Attachment files copied to the folder beside the backup (`<backup>-attachments/`). */
  files: number;
  ms: number;
}

const backupInput = z.strictObject({
  file: text(4096).refine((s) => s.trim().length > 0, 'must not be empty'),
});

/**
 * Copy the database with SQLite's online backup API while other processes keep writing. The
 * copy is made beside the target as `FILE.partial` in one step (a WAL reader never blocks
 * writers, and one step cannot be restarted by their commits), checked, then renamed into
 * place: FILE either is a complete, consistent backup or does not exist.
 */
export async function backupDatabase(
  db: Database,
  dbPath: string,
  file: string,
  options: { check?: boolean } = {},
): Promise<BackupResult> {
  const args = parseInput(backupInput, { file }, { file: 'file' });
  const target = resolve(args.file);
  if (dbPath !== ':memory:' && sameFile(target, dbPath))
    throw new BrainError('INVALID_INPUT', `file: ${args.file} is the database itself`);
  if (existsSync(target))
    throw new BrainError('CONFLICT', `file: ${args.file} already exists; choose a new name`);
  const partial = `${target}.partial`;
  const started = performance.now();
  let pages = 0;
  let files = 0;
  try {
    mkdirSync(dirname(target), { recursive: true });
    rmSync(partial, { force: true });
    const result = await db.backup(partial, {
      // The first step copies 100 pages; this makes the next one copy all the rest.
      progress: ({ totalPages }) => Math.max(totalPages, 100),
    });
    pages = result.totalPages;
    finishCopy(partial, options.check ?? true);
    // The files the copy names are in place before the copy is: a backup is whole or absent.
    files = copyAttachmentFiles(partial, dbPath, target, options.check ?? true);
    renameSync(partial, target);
  } catch (err) {
    removeQuietly(partial);
    if (err instanceof BrainError) throw err;
    const why = describeStorageFailure(err) ?? (err as Error).message;
    throw new BrainError('STORAGE_FAILED', `backup to ${args.file} failed: ${why}`, {
      cause: err,
    });
  }
  return {
    path: target,
    bytes: statSync(target).size,
    pages,
    files,
    ms: Math.round(performance.now() - started),
  };
}

/** Remove a half-made copy; when even that fails, the error that got us here is the one to report. */
function removeQuietly(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // e.g. ENOTDIR: the folder never existed, so neither does the copy.
  }
}

function sameFile(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return resolve(a) === resolve(b); // a does not exist yet: compare the names
  }
}

/**
 * The copy opens (and, when asked, its pages pass quick_check: not when the doctor saves a
 * damaged database before repairing it); it is left in rollback-journal mode, one file.
 */
function finishCopy(path: string, check: boolean): void {
  const copy = new BetterSqlite3(path);
  try {
    const result = check ? copy.pragma('quick_check', { simple: true }) : 'ok';
    if (result !== 'ok')
      throw new BrainError('STORAGE_FAILED', `the copy failed its check: ${String(result)}`);
    copy.pragma('journal_mode = DELETE');
  } finally {
    copy.close();
  }
}
